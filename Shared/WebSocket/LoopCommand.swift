import HTTP
import Synchronization

/// What other threads ask of the server's loop, through its `Inbox`: libmicrohttpd's thread hands
/// over upgraded sockets; the server's callers send and close; `stop` ends the loop.
enum LoopCommand: Sendable {
    /// An upgraded socket: its descriptor, its handle (the only way to close it), the bytes read past
    /// the handshake, the peer's address.
    case adopt(UpgradedSocket)
    case send(ConnectionID, [UInt8])
    case close(ConnectionID, code: UInt16, reason: String)
    case stop
}

/// The figures the loop publishes each pass for other threads to read: connections open and bytes
/// queued across them.
final class LoopFigures: Sendable {
    private let figures = Mutex((connections: 0, queuedBytes: 0))

    func publish(connections: Int, queuedBytes: Int) { figures.withLock { $0 = (connections, queuedBytes) } }

    var connections: Int { figures.withLock { $0.connections } }
    var queuedBytes: Int { figures.withLock { $0.queuedBytes } }
}
