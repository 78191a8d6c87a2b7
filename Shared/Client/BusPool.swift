import Caches
import Foundation
import Runtime
import ZeroMQ

/// Requests to the bus, many at once: `slots` clients of the gateway, each carrying one request at
/// a time (an MDP reply names no request, so a client with two out could not tell their replies
/// apart), waiting requests kept in lanes served in order of urgency, each lane holding at most its
/// share of the slots, a deadline per request, and each request's completion called exactly once:
/// with its reply frame, or nil when no answer came in time or it could not be sent. Owned by one
/// thread, which polls `sockets` (and whatever else it waits on) and calls `service(now:)`, where
/// every completion runs; `BusLoop` gives it a thread of its own for callers on other threads.
public final class BusPool {
    /// A kind of request: how many slots its requests may hold at once, and how many may wait
    /// before more are refused.
    public struct Lane: Sendable {
        public var share: Int
        public var limit: Int

        public init(share: Int = .max, limit: Int = .max) {
            self.share = share
            self.limit = limit
        }
    }

    /// One request: the service it goes to, its body (`[command, payload]`, signed on the way by
    /// the pool's signer unless `relayed`: then sent exactly as given), its lane, and what to do
    /// with the reply frame (nil: none came).
    public struct Job {
        public let service: String
        public let body: [Data]
        public let lane: Int
        public let relayed: Bool
        public let completion: (Data?) -> Void
        /// When its completion hears nil if no reply came: `timeoutMilliseconds` after it was
        /// submitted, waiting for a slot included. Set by `submit`.
        var deadline: Int64 = 0

        public init(service: String, body: [Data], lane: Int = 0, relayed: Bool = false, completion: @escaping (Data?) -> Void) {
            self.service = service
            self.body = body
            self.lane = lane
            self.relayed = relayed
            self.completion = completion
        }
    }

    private let clients: [MajordomoClient]
    private var inFlight: [(job: Job, deadline: Int64)?]
    private var waiting: [FirstInFirstOut<Job>]
    private var holding: [Int]
    private let lanes: [Lane]
    /// How long a request may take before its completion hears nil.
    public let timeoutMilliseconds: Int

    /// `slots` clients of the gateway at `endpoint`, signing with `signer`.
    public init(endpoint: String, context: Context, signer: Signer, serverKey: String?, slots: Int, lanes: [Lane] = [Lane()],
                timeoutMilliseconds: Int) throws {
        clients = try (0..<max(1, slots)).map { _ in
            let client = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: timeoutMilliseconds, serverKey: serverKey)
            client.signer = signer
            return client
        }
        inFlight = Array(repeating: nil, count: clients.count)
        waiting = lanes.map { _ in FirstInFirstOut() }
        holding = lanes.map { _ in 0 }
        self.lanes = lanes
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The sockets to poll: one turns readable when its request's reply has come.
    public var sockets: [Socket] { clients.map(\.socket) }

    /// Slots carrying no request, less the requests waiting for one.
    public var freeSlots: Int { inFlight.count { $0 == nil } - waiting.reduce(0) { $0 + $1.count } }
    /// Requests out or waiting.
    public var pending: Int { inFlight.count { $0 != nil } + waiting.reduce(0) { $0 + $1.count } }

    /// The earliest deadline of a request out or waiting (monotonic milliseconds), nil when none is.
    public var nextDeadline: Int64? {
        (inFlight.compactMap { $0?.deadline } + waiting.compactMap { $0.first?.deadline }).min()
    }

    /// Queues `job` (sent on the next `service`); false, and its completion never called, when its
    /// lane's waiting limit is reached. Its deadline runs from now, so a request that waits for a
    /// slot while the gateway is slow hears nil in time, not a timeout later for each wave of slots.
    @discardableResult
    public func submit(_ job: Job) -> Bool {
        let lane = min(max(0, job.lane), lanes.count - 1)
        guard waiting[lane].count < lanes[lane].limit else { return false }
        var job = job
        job.deadline = Clock.milliseconds() + Int64(timeoutMilliseconds)
        waiting[lane].append(job)
        return true
    }

    /// Takes the replies that have come, gives up on requests past their deadline, then sends what
    /// waits on the free slots, lanes in order. Completions run here.
    public func service(now: Int64) {
        for slot in inFlight.indices {
            guard let (job, deadline) = inFlight[slot] else { continue }
            let reply: [Data]?
            do { reply = try clients[slot].receiveReply() } catch {
                // Malformed: what became of the request is unknown, as when nothing came.
                finish(slot, job, nil)
                continue
            }
            if let reply {
                finish(slot, job, reply.first)
            } else if now > deadline {
                try? clients[slot].abandon()
                finish(slot, job, nil)
            }
        }
        // Requests that waited for a slot past their deadline: each lane is in order of submission.
        for lane in waiting.indices {
            while let first = waiting[lane].first, first.deadline < now {
                _ = waiting[lane].popFirst()
                first.completion(nil)
            }
        }
        dispatch(now: now)
    }

    /// Completes every request out or waiting with nil (a loop that stops).
    public func cancelAll() {
        for slot in inFlight.indices {
            guard let (job, _) = inFlight[slot] else { continue }
            try? clients[slot].abandon()
            finish(slot, job, nil)
        }
        for lane in waiting.indices {
            while let job = waiting[lane].popFirst() { job.completion(nil) }
        }
    }

    private func finish(_ slot: Int, _ job: Job, _ reply: Data?) {
        inFlight[slot] = nil
        holding[min(max(0, job.lane), lanes.count - 1)] -= 1
        job.completion(reply)
    }

    private func dispatch(now: Int64) {
        for slot in inFlight.indices where inFlight[slot] == nil {
            guard let lane = waiting.indices.first(where: { !waiting[$0].isEmpty && holding[$0] < lanes[$0].share }),
                  let job = waiting[lane].popFirst() else { return }
            do {
                try clients[slot].send(job.service, job.body, relayed: job.relayed)
                inFlight[slot] = (job, job.deadline)
                holding[lane] += 1
            } catch {
                job.completion(nil)
            }
        }
    }
}
