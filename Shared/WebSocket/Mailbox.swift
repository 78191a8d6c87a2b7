import CMicroHTTPD
import Foundation
import Glibc

/// How other threads talk to the loop: a lock-guarded list of commands and an eventfd the loop
/// polls. Posting never blocks beyond the lock; the eventfd is written once per batch, not per
/// command. The server and libmicrohttpd's thread post; only the loop takes. It also carries the
/// figures the loop publishes back (connections, queued bytes).
final class Mailbox: @unchecked Sendable {
    enum Command {
        /// An upgraded socket from libmicrohttpd's thread: its descriptor, its upgrade handle (the
        /// only way to close it), bytes MHD read past the handshake, the peer's address.
        case adopt(fd: Int32, handle: OpaquePointer, extra: [UInt8], peer: String)
        case send(ConnectionID, [UInt8])
        case close(ConnectionID, code: UInt16, reason: String)
        case stop
    }

    /// The eventfd the loop polls; owned here, closed at deinit.
    let wakeFD: Int32
    private let lock = NSLock()
    private var commands: [Command] = []
    private var signalled = false
    private var open = true
    private var connections = 0
    private var queued = 0

    /// Throws `WebSocketError.loop` when no eventfd can be made.
    init() throws {
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw WebSocketError.loop("eventfd: \(String(cString: strerror(errno)))") }
    }

    deinit { Glibc.close(wakeFD) }

    /// Queues `command` for the loop and wakes it; false (and dropped) once the loop has shut the box.
    @discardableResult
    func post(_ command: Command) -> Bool {
        let (accepted, wake): (Bool, Bool) = lock.withLock {
            guard open else { return (false, false) }
            commands.append(command)
            let wake = !signalled
            signalled = true
            return (true, wake)
        }
        if wake {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
        return accepted
    }

    /// Everything posted since the last take, in order; called by the loop when the eventfd fires.
    func take() -> [Command] {
        var count: UInt64 = 0
        _ = read(wakeFD, &count, 8)
        return lock.withLock {
            signalled = false
            defer { commands = [] }
            return commands
        }
    }

    /// Closes the box: later posts are refused. Returns what was still queued.
    func shut() -> [Command] {
        lock.withLock {
            open = false
            defer { commands = [] }
            return commands
        }
    }

    /// The loop's figures as of its last pass: connections open, bytes queued across them.
    func publish(connections: Int, queuedBytes: Int) {
        lock.withLock {
            self.connections = connections
            queued = queuedBytes
        }
    }

    var connectionCount: Int { lock.withLock { connections } }
    var queuedBytes: Int { lock.withLock { queued } }
}
