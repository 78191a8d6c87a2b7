import Dispatch
import Glibc
import Synchronization

/// The loop thread's lifecycle as other threads see it: its id, its set-up's outcome, its end.
final class LoopThread: Sendable {
    private let id = Mutex<pthread_t?>(nil)
    private let setup = Mutex<HTTP2Error?>(nil)
    private let isReady = DispatchSemaphore(value: 0)
    /// Signalled once when the thread ends; each joiner signals it again for the next.
    private let isEnded = DispatchSemaphore(value: 0)

    func started() { id.withLock { $0 = pthread_self() } }

    func ready(_ error: HTTP2Error?) {
        setup.withLock { $0 = error }
        isReady.signal()
    }

    func ended() { isEnded.signal() }

    func waitUntilReady() -> HTTP2Error? {
        isReady.wait()
        return setup.withLock { $0 }
    }

    func join() {
        isEnded.wait()
        isEnded.signal()
    }

    var isCurrent: Bool { id.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }
}
