import Runtime

/// The scheduler's own settings, from flags or `PUSHBUS_*` variables; each property's initial value
/// is its flag's default.
public struct SchedulerSettings: Options {
    /// Pending requests a device may hold; `local.add` refuses one more with 6102.
    public var maxPending = 64
    /// Delivered (and missed) notifications kept per device, newest first.
    public var deliveredHistory = 100
    /// How late a request may still fire, in seconds: a one-shot request due longer ago (say, while
    /// the service was down) is marked missed instead.
    public var lateness: Double = 3600
    /// Scheduled pushes one app may keep (deleted ones do not count); `schedule.create` refuses one
    /// more with 1003. Far above what an app schedules, low enough to stop a flood.
    public var maxSchedulesPerApp = 1000

    public init() {}

    public static let options: [Option<SchedulerSettings>] = [
        .int("local-max-pending", \.maxPending, in: 1...100_000, help: "Pending local notifications one device may hold."),
        .int("local-delivered-history", \.deliveredHistory, in: 0...100_000, help: "Delivered local notifications kept per device."),
        .int("local-lateness-s", \.lateness, in: 1...31_536_000,
             help: "Seconds a due request may still fire late (after downtime); older one-shots are marked missed."),
        .int("max-schedules-per-app", \.maxSchedulesPerApp, in: 1...1_000_000,
             help: "Scheduled pushes (schedule.create) one app may keep; deleted ones do not count."),
    ]
}
