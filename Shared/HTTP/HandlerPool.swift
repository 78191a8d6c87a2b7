import Foundation
import Synchronization
import Threads

/// Threads for handlers that block (a bus call, say): a request waits in the queue for a free
/// thread, and past `queueLimit` waiting it is refused, so a burst costs memory, not threads.
public final class HandlerPool: Sendable {
    private let jobs: JobQueue

    /// Starts `threads` threads named `name`.
    public init(name: String, threads: Int, queueLimit: Int) {
        jobs = JobQueue(limit: queueLimit, threads: max(1, threads))
        for _ in 0..<max(1, threads) {
            NamedThread.start(name) { [jobs] in
                while let job = jobs.next() { job() }
            }
        }
    }

    deinit { jobs.close() }

    /// Runs `job` on a pool thread; false (and not run) when `queueLimit` jobs wait already.
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool { jobs.push(job) }

    /// A server handler that runs `handle` on this pool and answers with its response; 503 with
    /// `busy` when the queue is full.
    public func handler(busy: HTTPResponse, _ handle: @escaping @Sendable (HTTPRequest) -> HTTPResponse) -> HTTPServer.Handler {
        { [self] request, responder in
            if !submit({ responder.respond(handle(request)) }) { responder.respond(busy) }
        }
    }

    /// Lets the threads end once the queue is empty.
    public func stop() { jobs.close() }
}

/// The pool's queue: a locked list, and a semaphore counting the jobs in it, which the threads wait on.
private final class JobQueue: Sendable {
    typealias Job = @Sendable () -> Void
    private let jobs = Mutex<(waiting: [Job], head: Int, open: Bool)>(([], 0, true))
    private let ready = DispatchSemaphore(value: 0)
    private let limit: Int
    private let threads: Int

    init(limit: Int, threads: Int) {
        self.limit = limit
        self.threads = threads
    }

    func push(_ job: @escaping Job) -> Bool {
        let taken = jobs.withLock { state -> Bool in
            guard state.open, state.waiting.count - state.head < limit else { return false }
            state.waiting.append(job)
            return true
        }
        if taken { ready.signal() }
        return taken
    }

    /// The next job, waiting for one; nil once closed.
    func next() -> Job? {
        ready.wait()
        return jobs.withLock { state -> Job? in
            guard state.head < state.waiting.count else { return nil }
            let job = state.waiting[state.head]
            state.head += 1
            if state.head >= 64, state.head * 2 >= state.waiting.count {
                state.waiting.removeFirst(state.head)
                state.head = 0
            }
            return job
        }
    }

    /// Wakes every thread to end (a wake that finds the queue empty ends its thread): jobs still
    /// queued are dropped.
    func close() {
        let waiting = jobs.withLock { state -> Bool in
            defer { state.open = false; state.waiting = []; state.head = 0 }
            return state.open
        }
        guard waiting else { return }
        for _ in 0..<threads { ready.signal() }
    }
}
