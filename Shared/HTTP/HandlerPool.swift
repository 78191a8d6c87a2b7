import Foundation
import Threads

/// Threads for handlers that block (a bus call, say): a request waits in the queue for a free
/// thread, and past `queueLimit` waiting it is refused, so a burst costs memory, not threads.
public final class HandlerPool: Sendable {
    private let jobs: JobQueue

    /// Starts `threads` threads named `name`.
    public init(name: String, threads: Int, queueLimit: Int) {
        jobs = JobQueue(limit: queueLimit)
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

/// The pool's queue: a condition-guarded list the threads wait on.
private final class JobQueue: @unchecked Sendable {
    typealias Job = @Sendable () -> Void
    private let condition = NSCondition()
    private var waiting: [Job] = []
    private var head = 0
    private var open = true
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func push(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard open, waiting.count - head < limit else { return false }
        waiting.append(job)
        condition.signal()
        return true
    }

    /// The next job, waiting for one; nil once closed and empty.
    func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == waiting.count {
            guard open else { return nil }
            condition.wait()
        }
        let job = waiting[head]
        head += 1
        if head >= 64, head * 2 >= waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return job
    }

    func close() {
        condition.lock()
        open = false
        condition.broadcast()
        condition.unlock()
    }
}
