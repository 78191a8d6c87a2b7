/// The RFC 6455 close codes this server sends or reports.
public enum WebSocketCloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let protocolError: UInt16 = 1002
    public static let unsupportedData: UInt16 = 1003
    /// Reported, never sent: the peer's close frame carried no code.
    public static let noStatus: UInt16 = 1005
    /// Reported, never sent: the connection ended without a close frame.
    public static let abnormal: UInt16 = 1006
    public static let invalidData: UInt16 = 1007
    public static let policyViolation: UInt16 = 1008
    public static let messageTooBig: UInt16 = 1009

    /// Whether a peer may put `code` in a close frame (RFC 6455 §7.4).
    public static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: return true
        default: return false
        }
    }
}
