import Runtime

/// The push service's own settings, from flags or `PUSHBUS_*` variables.
public struct PushSettings: Options {
    /// Devices per audience page: one `audience.resolve`, `device.tokens` and `badge.apply` each.
    public var pageSize = 1000
    /// `apns.send` requests out at once (flow control towards the senders): enough that a slot is
    /// free for another app's push while one app's broadcast keeps the senders busy (the senders
    /// share APNs' streams between apps in turn).
    public var senderSlots = 16
    /// Notifications per `apns.send`. 250, not 100: each request's own cost (its lease, its proof
    /// and routing through the gateway, the sender's answer) spread over more notifications took
    /// 2 µs of CPU off each in a push to 1,000,000 devices (docs/benchmarks.md).
    public var batchSize = 250
    /// Notifications one app may have out to the senders at once (its slots × `batchSize`, at
    /// least one slot): what a kill -9 of push or apns in the middle of its broadcast may send
    /// twice. 1,500 keeps two senders' 200 streams busy, and the window near the 1,600 it was with
    /// batches of 100, while the other slots stay free for other apps.
    public var appInFlight = 1500

    /// The sender slots one app may hold: `appInFlight` in whole requests, at least one.
    public var appSlots: Int { max(1, appInFlight / batchSize) }
    /// Attempts at one notification before a 429, 5xx or unanswered send counts as failed.
    public var maxAttempts = 5
    /// Seconds a sender may take over one `apns.send` before its notifications are queued again:
    /// above the gateway's deadline for apns (`--service-timeout-ms`, 90 s), which itself is above
    /// what a sender waits on APNs, so a slow APNs is waited for rather than sent to twice.
    public var senderTimeoutSeconds = 120
    /// Due notifications of one app queued unsent before the fan-out stops expanding that app's pages.
    public var backlog = 5000

    public init() {}

    public static let options: [Option<PushSettings>] = [
        .int("page-size", \.pageSize, in: 1...1000, help: "Devices per audience page (one audience.resolve, device.tokens and badge.apply each)."),
        .int("sender-slots", \.senderSlots, in: 1...256, help: "apns.send requests in flight at once: the flow control towards the apns senders. One app holds all but two, so another app's push finds a slot free."),
        .int("batch-size", \.batchSize, in: 1...1000, help: "Notifications per apns.send request."),
        .int("app-in-flight", \.appInFlight, in: 1...1_000_000,
             help: "Notifications one app may have out to the apns senders at once (at least one request): the most a kill -9 of push or apns mid-broadcast may send twice."),
        .int("max-attempts", \.maxAttempts, in: 1...50, help: "Attempts at one notification before a 429, 5xx or unanswered send counts as failed."),
        .int("sender-timeout", \.senderTimeoutSeconds, in: 1...600,
             help: "Seconds an apns sender may take over one request before its notifications are queued again; keep it above the gateway's deadline for apns (--service-timeout-ms), or a slow APNs gets notifications twice."),
        .int("backlog", \.backlog, in: 100...1_000_000,
             help: "Due notifications of one app waiting unsent before the fan-out pauses expanding that app's audience pages; other apps' go on (bounds the work queued, not memory: it is on disk)."),
    ]
}
