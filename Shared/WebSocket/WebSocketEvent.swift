/// What one frame from a client amounts to, as `WebSocketReader.next()` reports it.
public enum WebSocketEvent: Equatable, Sendable {
    /// A complete text message, fragments reassembled, valid UTF-8.
    case text(String)
    /// A non-final fragment was taken in; the message is not complete yet.
    case fragment
    /// A ping; the answer is a pong with the same payload.
    case ping([UInt8])
    /// A pong: only proof the peer is alive.
    case pong([UInt8])
    /// The peer closes: its code (1005 when it gave none) and reason.
    case close(code: UInt16, reason: String)
}
