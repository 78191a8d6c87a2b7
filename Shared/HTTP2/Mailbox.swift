import CTLS
import Glibc
import Synchronization

/// How other threads reach the loop: a lock-guarded list of commands and an eventfd the loop polls.
/// Posting never blocks beyond the lock, and the eventfd is written once per batch of posts, not
/// per post. Callers of `HTTP2Client` post; only the loop takes.
final class Mailbox: Sendable {
    enum Command: Sendable {
        case send(Submission)
        /// A name lookup's answer for the origin keyed `key` (`Resolver`).
        case resolved(key: String, answer: Resolver.Answer)
        case stop
    }

    private struct State {
        var commands: [Command] = []
        var signalled = false
        var open = true
    }

    /// The eventfd the loop polls; owned here, closed at deinit.
    let wakeFD: Int32
    private let state = Mutex(State())

    init() throws(HTTP2Error) {
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw .setup("eventfd: \(String(cString: strerror(errno)))") }
    }

    deinit { Glibc.close(wakeFD) }

    /// Queues `command` and wakes the loop; false (and dropped) once the loop has shut the box.
    @discardableResult
    func post(_ command: Command) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard state.open else { return (false, false) }
            state.commands.append(command)
            defer { state.signalled = true }
            return (true, !state.signalled)
        }
        if wake {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
        return accepted
    }

    /// Everything posted since the last take, in order; the loop calls it when the eventfd fires.
    func take() -> [Command] {
        var count: UInt64 = 0
        _ = read(wakeFD, &count, 8)
        return state.withLock { state in
            state.signalled = false
            defer { state.commands = [] }
            return state.commands
        }
    }

    /// Refuses later posts; returns what was still queued, for the loop to end.
    func shut() -> [Command] {
        state.withLock { state in
            state.open = false
            defer { state.commands = [] }
            return state.commands
        }
    }
}
