/// Why a call got no reply.
public enum ClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No reply within the client's own timeout (the gateway itself may be down).
    case timeout(milliseconds: Int)
    /// A reply that is not MDP/0.1 or not for this call.
    case malformedReply(String)

    public var description: String {
        switch self {
        case .timeout(let ms): "no reply from the gateway within \(ms) ms"
        case .malformedReply(let reason): "malformed reply: \(reason)"
        }
    }
}
