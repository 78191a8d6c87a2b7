/// Identifies one WebSocket connection; never reused within a process.
public typealias ConnectionID = UInt64

/// What a `WebSocketServer` tells its owner. The server holds its delegate strongly until `stop()`
/// returns, then lets it go. All three are called on the server's loop thread, one at a time, so a delegate needs no
/// lock of its own for state only they touch; they must not block, since every connection waits.
public protocol WebSocketDelegate: AnyObject {
    /// A handshake completed; `peer` is the client's address as "host:port".
    func opened(_ connection: ConnectionID, peer: String)
    /// A complete text message (fragments reassembled), valid UTF-8.
    func received(_ text: String, from connection: ConnectionID)
    /// The connection is over: called exactly once per opened connection, whoever closed it. `code`
    /// is the client's close code when it closed, the server's when it did, 1006 when the
    /// connection was lost or found dead without a close frame.
    func closed(_ connection: ConnectionID, code: UInt16, reason: String)
}
