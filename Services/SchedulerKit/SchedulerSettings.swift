import Runtime

/// The scheduler's own settings, from flags or `PUSHBUS_*` variables.
public struct SchedulerSettings: Sendable {
    /// Pending requests a device may hold; `local.add` refuses one more with 6102.
    public var maxPending: Int
    /// Delivered (and missed) notifications kept per device, newest first.
    public var deliveredHistory: Int
    /// How late a request may still fire, in seconds: a one-shot request due longer ago (say, while
    /// the service was down) is marked missed instead.
    public var lateness: Double

    public init(maxPending: Int = 64, deliveredHistory: Int = 100, lateness: Double = 3600) {
        self.maxPending = maxPending
        self.deliveredHistory = deliveredHistory
        self.lateness = lateness
    }

    public static let flags: [Flag] = [
        Flag("local-max-pending", default: "64", help: "Pending local notifications one device may hold."),
        Flag("local-delivered-history", default: "100", help: "Delivered local notifications kept per device."),
        Flag("local-lateness-s", default: "3600",
             help: "Seconds a due request may still fire late (after downtime); older one-shots are marked missed."),
    ]

    public init(_ flags: Flags) throws(UsageError) {
        maxPending = try flags.int("local-max-pending", in: 1...100_000)
        deliveredHistory = try flags.int("local-delivered-history", in: 0...100_000)
        lateness = Double(try flags.int("local-lateness-s", in: 1...31_536_000))
    }
}
