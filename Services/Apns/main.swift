import ApnsKit
import Runtime
import Worker

ServiceMain.run(.apns, summary: "PushBus apns sender: delivers the push service's notifications to APNs over HTTP/2 (stateless; run as many as needed).",
                // One apns.send at a time: its HTTP/2 streams are the concurrency, and a request taken
                // is answered within --apns-timeout, well inside the gateway's deadline, so a
                // request the gateway gives up on was never sent. More senders: --replicas.
                settings: ApnsSettings.self, workerDefaults: WorkerOptions { $0.credit = 1 }) { settings, options, _, _ in
    try ApnsHandler(settings: settings, publisher: options.shard.serviceName("apns"))
}
