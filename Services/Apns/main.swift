import ApnsKit
import Runtime
import Worker

ServiceMain.run(.apns, summary: "PushBus apns sender: delivers the push service's notifications to APNs over HTTP/2 (stateless; run as many as needed).",
                settings: ApnsSettings.self) { settings, options, _ in
    try ApnsHandler(settings: settings, publisher: options.shard.serviceName("apns"))
}
