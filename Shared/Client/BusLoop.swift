import Foundation
import Runtime
import Synchronization
import Threads
import ZeroMQ

/// A `BusPool` on a thread of its own, for callers on other threads: they submit requests (never
/// blocking) or call and wait; every completion runs on the loop's thread, so it must be short.
/// The pool's signer is made on that thread, which owns it and every socket.
public final class BusLoop: Sendable {
    /// A request from another thread; its completion hears the reply frame, or nil. `relayed`: sent
    /// exactly as given, never signed (`BusPool.Job`).
    public struct Request: Sendable {
        public let service: String
        public let body: [Data]
        public let lane: Int
        public let relayed: Bool
        public let completion: @Sendable (Data?) -> Void

        public init(service: String, body: [Data], lane: Int = 0, relayed: Bool = false, completion: @escaping @Sendable (Data?) -> Void) {
            self.service = service
            self.body = body
            self.lane = lane
            self.relayed = relayed
            self.completion = completion
        }
    }

    private enum Item: Sendable {
        case request(Request)
        case stop
    }

    /// What the loop's thread and its callers share.
    private final class Shared: Sendable {
        let inbox = Inbox<Item>()
        let finished = DispatchSemaphore(value: 0)
        let stopped = Atomic(false)
        let refusals = Atomic(0)
    }

    private let shared = Shared()

    /// Starts thread `name` with a pool of `slots` clients of `endpoint` in `lanes`, signing with
    /// what `signer` makes (on the loop's thread). Throws when the pool's sockets cannot be made.
    public init(name: String, endpoint: String, context: Context, serverKey: String?, slots: Int, lanes: [BusPool.Lane] = [BusPool.Lane()],
                timeoutMilliseconds: Int, signer: @escaping @Sendable () -> Signer) throws {
        let made = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        NamedThread.start(name) { [shared] in
            defer { shared.finished.signal() }
            let pool: BusPool
            do {
                pool = try BusPool(endpoint: endpoint, context: context, signer: signer(), serverKey: serverKey, slots: slots, lanes: lanes,
                                   timeoutMilliseconds: timeoutMilliseconds)
            } catch {
                failure.withLock { $0 = error }
                made.signal()
                return
            }
            made.signal()
            Self.run(pool, shared)
        }
        made.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    deinit { stop() }

    /// Queues `request`; its completion always runs once (nil when its lane was full, the loop stopped
    /// or no answer came in time).
    public func submit(_ request: Request) {
        guard !shared.stopped.load(ordering: .acquiring) else { return request.completion(nil) }
        shared.inbox.post(.request(request))
    }

    /// Sends `body` to `service` and waits for the reply frame; nil when none came in time. Blocks
    /// the calling thread, never the loop's.
    public func call(_ service: String, _ body: [Data], lane: Int = 0) -> Data? {
        let answered = DispatchSemaphore(value: 0)
        let reply = Mutex<Data?>(nil)
        submit(Request(service: service, body: body, lane: lane) { frame in
            reply.withLock { $0 = frame }
            answered.signal()
        })
        answered.wait()
        return reply.withLock { $0 }
    }

    /// Requests refused so far because their lane was full.
    public var refused: Int { shared.refusals.load(ordering: .relaxed) }

    /// Completes what is out or waiting with nil and ends the thread; safe twice.
    public func stop() {
        guard !shared.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shared.inbox.post(.stop)
        shared.finished.wait()
    }

    private static func run(_ pool: BusPool, _ shared: Shared) {
        let inbox = shared.inbox
        while true {
            var poller = Poller(pool.sockets, fds: [inbox.fd])
            let wait = pool.nextDeadline.map { Int(max(0, $0 - Clock.milliseconds())) } ?? 1000
            _ = try? poller.poll(timeout: wait)
            for item in inbox.take() {
                switch item {
                case .request(let request):
                    let job = BusPool.Job(service: request.service, body: request.body, lane: request.lane, relayed: request.relayed,
                                          completion: request.completion)
                    if !pool.submit(job) {
                        shared.refusals.add(1, ordering: .relaxed)
                        request.completion(nil)
                    }
                case .stop:
                    pool.cancelAll()
                    for case .request(let late) in inbox.take() { late.completion(nil) }
                    return
                }
            }
            pool.service(now: Clock.milliseconds())
        }
    }
}
