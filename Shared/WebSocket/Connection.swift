/// One upgraded socket and everything the loop knows about it. Created, used and ended by the loop
/// thread only. The descriptor belongs to libmicrohttpd: it is given back through `handle`
/// (MHD_upgrade_action CLOSE), never close(2)d here. Idle, it holds no buffers; its queue's memory
/// goes back to the system when it ends.
final class Connection {
    enum State {
        case open
        /// A close frame is queued or sent; the socket ends once the peer closes or `deadline` passes.
        case closing(deadline: Double)
    }

    let id: ConnectionID
    let fd: Int32
    let handle: OpaquePointer
    var state = State.open
    var reader: WebSocketReader
    var outbound: OutboundQueue
    var budget: FrameBudget
    /// When the last bytes arrived.
    var lastHeard: Double
    /// When the unanswered ping went out; nil when none is outstanding.
    var pingSentAt: Double?
    /// Whether the delegate has heard `closed` for it.
    var reported = false
    /// Whether epoll watches it for writability (only while `outbound` is not empty).
    var watchingWrites = false
    /// Whether the write side is shut (after the close frame went out).
    var writeShut = false
    /// Whether the peer started the close: then the socket ends as soon as the echo is written.
    var peerClosed = false

    /// `queueRoom`: the most its outgoing queue may hold.
    init(id: ConnectionID, fd: Int32, handle: OpaquePointer, maxMessageBytes: Int, queueRoom: Int, burst: Double, now: Double) {
        self.id = id
        self.fd = fd
        self.handle = handle
        reader = WebSocketReader(maxMessageBytes: maxMessageBytes)
        outbound = OutboundQueue(room: queueRoom)
        budget = FrameBudget(burst: burst, now: now)
        lastHeard = now
    }

    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }
}
