
/// JPush v3's push codes where they fit a push's checks (reference/commands.md, section "push").
extension ResultCode {
    /// A required field is missing.
    public static let pushMissing = ResultCode(1002)
    /// A field is invalid.
    public static let pushInvalid = ResultCode(1003)
    /// A notification is too big for APNs.
    public static let pushTooBig = ResultCode(1005)
    /// The audience has no device to send to.
    public static let pushNoTarget = ResultCode(1011)
}

extension CommandError {
    public static func missing(_ message: String) -> CommandError { CommandError(.pushMissing, message) }
    public static func badField(_ message: String) -> CommandError { CommandError(.pushInvalid, message) }
}
