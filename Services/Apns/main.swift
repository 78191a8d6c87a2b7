import ApnsKit
import Runtime
import Worker

// The apns sender keeps nothing: its worker hands each apns.send to the HTTP/2 client's loop at once
// and answers it when APNs has answered every notification, so many batches are out at once (the
// credit) and one slow answer holds up no other. More senders: --replicas.
ServiceMain.run(.apns, summary: "PushBus apns sender: delivers the push service's notifications to APNs over HTTP/2 (stateless; run as many as needed).",
                settings: ApnsSettings.self, workerDefaults: WorkerOptions { $0.credit = 64 }, stateless: { settings, _, _ in
    try ApnsHandler(settings: settings)
})
