import Runtime

/// The badge service's own settings, from flags or `PUSHBUS_*` variables.
public struct BadgeSettings: Options {
    /// How long `badge.apply` remembers a msg_id after its last call.
    public var retentionHours = 24

    public init() {}

    public static let options: [Option<BadgeSettings>] = [
        .int("badge-retention-hours", \.retentionHours, in: 1...8760,
             help: "How long badge.apply remembers a msg_id after its last call, so a retried push changes nothing."),
    ]
}
