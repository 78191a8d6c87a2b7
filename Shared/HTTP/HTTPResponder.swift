import CMicroHTTPD
import Glibc
import Synchronization

/// How a handler answers its request: at once, on the server's thread, or later from any thread,
/// while the connection waits suspended (costing no thread). The first answer counts; later ones
/// are ignored, as are answers after the server stopped.
public struct HTTPResponder: Sendable {
    let slot: AnswerSlot
    let connection: UInt
    let suspensions: Suspensions

    /// Answers the request. Callable from any thread, at any time.
    public func respond(_ response: HTTPResponse) {
        if slot.answer(.response(response)) { suspensions.resume(connection) }
    }

    /// Answers `101 Switching Protocols` with `headers`, then hands the connection to `adopt` (on the
    /// server's thread). Only from the handler itself, before it returns: an upgrade is decided on
    /// the spot.
    public func upgrade(headers: [(name: String, value: String)], adopt: @escaping @Sendable (UpgradedSocket) -> Void) {
        _ = slot.answer(.upgrade(headers, adopt))
    }
}

/// One request's answer on its way from whichever thread answers to the server's thread.
final class AnswerSlot: Sendable {
    enum Answer: Sendable {
        case response(HTTPResponse)
        case upgrade([(name: String, value: String)], @Sendable (UpgradedSocket) -> Void)
    }

    private enum State: Sendable {
        /// The handler runs, on the server's thread.
        case handling
        /// The handler returned without answering: the connection is suspended until an answer.
        case suspended
        case answered(Answer)
        /// The server's thread took the answer.
        case taken
    }

    private let state = Mutex(State.handling)

    /// Records `answer` unless one came before; true when the connection waits suspended, so the
    /// caller must resume it.
    func answer(_ answer: Answer) -> Bool {
        state.withLock { state in
            switch state {
            case .handling:
                state = .answered(answer)
                return false
            case .suspended:
                state = .answered(answer)
                return true
            case .answered, .taken:
                return false
            }
        }
    }

    /// On the server's thread, once the handler returned: the answer if it came, else (inside the
    /// same lock, so no answer can slip between) `suspend` runs and nil is returned.
    func takeOrSuspend(_ suspend: () -> Void) -> Answer? {
        state.withLock { state in
            if case .answered(let answer) = state {
                state = .taken
                return answer
            }
            state = .suspended
            suspend()
            return nil
        }
    }

    /// On the server's thread after a resume: the answer.
    func take() -> Answer? {
        state.withLock { state in
            guard case .answered(let answer) = state else { return nil }
            state = .taken
            return answer
        }
    }
}

/// The connections waiting suspended for their answers, so that an answer resumes a connection
/// only while the server runs (after it stopped, the daemon is gone).
final class Suspensions: Sendable {
    private struct Waiting: Sendable {
        var open = true
        var connections: Set<UInt> = []
    }

    private let waiting = Mutex(Waiting())
    /// Wakes the server's loop: a resumed connection is only written when the loop runs next.
    let bell: Bell

    init(bell: Bell) { self.bell = bell }

    /// On the server's thread: suspends `connection` and notes it (in the lock, so no resume can
    /// come before the suspension).
    func suspend(_ connection: OpaquePointer) {
        waiting.withLock { waiting in
            waiting.connections.insert(UInt(bitPattern: connection))
            MHD_suspend_connection(connection)
        }
    }

    /// From any thread: resumes `connection` if it waits and the server runs.
    func resume(_ connection: UInt) {
        waiting.withLock { waiting in
            guard waiting.open, waiting.connections.remove(connection) != nil, let pointer = OpaquePointer(bitPattern: connection) else { return }
            MHD_resume_connection(pointer)
        }
        bell.ring()
    }

    /// On the server's thread as it stops: no resume from other threads any more; returns the
    /// connections still waiting, for the server to answer and resume itself.
    func close() -> [UInt] {
        waiting.withLock { waiting in
            waiting.open = false
            defer { waiting.connections = [] }
            return Array(waiting.connections)
        }
    }
}

/// The server loop's wake-up: an eventfd any thread may write, and whether the loop is to stop.
final class Bell: Sendable {
    let fd: Int32
    private let stopping = Atomic(false)

    init() throws(HTTPServerError) {
        fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw .loop("eventfd: \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    func ring() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// Asks the loop to stop; false when that was asked before.
    func requestStop() -> Bool {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        ring()
        return true
    }

    /// On the loop: takes the rings; true when the loop is to stop.
    func answer() -> Bool {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
        return stopping.load(ordering: .acquiring)
    }
}
