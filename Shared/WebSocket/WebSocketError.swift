/// What goes wrong in the WebSocket layer.
public enum WebSocketError: Error, Equatable, Sendable {
    /// The peer broke the protocol or a limit; the connection is closed with `code` and `reason`.
    case violation(code: UInt16, reason: String)
    /// The server could not listen on the address given (bad host, port taken without SO_REUSEPORT).
    case cannotListen(String)
    /// The server could not set up its loop (epoll, eventfd, the thread).
    case loop(String)

    /// The close code a violation is answered with; nil for the other cases.
    public var closeCode: UInt16? {
        if case .violation(let code, _) = self { return code }
        return nil
    }
}
