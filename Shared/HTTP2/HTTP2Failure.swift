/// Why a request got no HTTP answer, split by what the server may have done with it: what a sender
/// that must deliver once needs to know before it sends again.
public enum HTTP2Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Never reached the server: not written, refused with REFUSED_STREAM, above a GOAWAY's
    /// last-stream-id, no connection could be opened before the send deadline, or a malformed
    /// request. Safe to send again.
    case notSent(String)
    /// Written, and then the connection died (PING unanswered, socket error, closed with the stream
    /// open), the server reset the stream (other than REFUSED_STREAM), or the stream timeout passed
    /// before a response. The server may have acted on it.
    case lost(String)

    public var reason: String {
        switch self {
        case .notSent(let reason), .lost(let reason): reason
        }
    }

    public var description: String {
        switch self {
        case .notSent(let reason): "not sent: \(reason)"
        case .lost(let reason): "lost: \(reason)"
        }
    }
}
