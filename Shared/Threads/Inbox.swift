import CSystem
import Glibc
import Synchronization

/// What other threads hand a loop thread: items posted from any thread, taken by the loop when the
/// eventfd `fd` it polls turns readable (a ZeroMQ `Poller` takes it among its `fds`). Posting never
/// blocks beyond a short lock, and wakes the loop once per batch, not once per item.
public final class Inbox<Item: Sendable>: Sendable {
    /// The descriptor the loop polls; owned here, closed at deinit.
    public let fd: Int32
    private let items = Mutex<(list: [Item], rung: Bool, open: Bool)>(([], false, true))

    public init() {
        fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(fd >= 0, "eventfd failed: the process is out of descriptors")
    }

    deinit { Glibc.close(fd) }

    /// Queues `item` for the loop and wakes it; false (and dropped) once the loop closed the inbox.
    @discardableResult
    public func post(_ item: Item) -> Bool {
        let (taken, wake) = items.withLock { state -> (Bool, Bool) in
            guard state.open else { return (false, false) }
            state.list.append(item)
            defer { state.rung = true }
            return (true, !state.rung)
        }
        if wake {
            var one: UInt64 = 1
            _ = write(fd, &one, 8)
        }
        return taken
    }

    /// On the loop: everything posted since the last take, in order.
    public func take() -> [Item] {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
        return items.withLock { state in
            state.rung = false
            defer { state.list = [] }
            return state.list
        }
    }

    /// On the loop as it stops: later posts are refused; returns what was still queued.
    public func close() -> [Item] {
        items.withLock { state in
            state.open = false
            defer { state.list = [] }
            return state.list
        }
    }
}
