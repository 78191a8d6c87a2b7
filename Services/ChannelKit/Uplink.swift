import Client
import Credentials
import Caches
import Foundation
import Runtime
import Schema
import ZeroMQ

/// A channel process's requests to the bus, on a thread of its own: telling devices' shards of
/// connections and acknowledgements, reporting devices' statistics, and handing a shard's messages
/// to the process holding the connections. Any thread may `enqueue`; a fixed number of clients
/// each carry one request at a time (the gateway spreads them over the shards), and each answer is
/// given to its request's completion on this thread. Internal commands are signed as this channel
/// process; a device's own reports (`stats.report`, `page.enter`) as the device, with the key derived
/// from server.key (the device proved itself by its hello).
public final class Uplink: @unchecked Sendable {
    /// One request: where it goes, and what to do with the reply body (nil: no answer in time).
    public struct Job {
        let service: String
        let command: Command
        let payload: Data
        let lane: Lane
        let completion: ((Data?) -> Void)?
    }

    /// How soon a request goes, and what happens when too many wait.
    public enum Lane: Int, CaseIterable {
        /// What a device waits for or presence depends on (its messages on their way to another
        /// channel process, attachments, acknowledgements gathered by message, detachments, a
        /// restart's reset): first, never dropped.
        case urgent
        /// Page changes and notification authorization: after those; past `limit` the newest are
        /// dropped.
        case normal
        /// Statistics: last, and dropped first.
        case bulk

        var limit: Int {
            switch self {
            case .urgent: .max
            case .normal: 50_000
            case .bulk: 20_000
            }
        }

        /// Of `slots` clients, how many may carry this lane's requests at once: statistics never take
        /// more than a few, so that a broadcast's receipts do not eat the CPU its deliveries need.
        func share(of slots: Int) -> Int {
            switch self {
            case .urgent: slots
            case .normal: max(1, slots / 2)
            case .bulk: max(1, slots / 8)
            }
        }
    }

    private let lock = NSCondition()
    /// Waiting jobs by lane, so a flood of one device's reports never holds up another's attachment.
    private var lanes: [FirstInFirstOut<Job>] = Lane.allCases.map { _ in FirstInFirstOut() }
    private var dropped = 0
    private var droppedReportedAt = 0.0
    private let endpoint: String
    private let serverKey: String?
    private let secrets: Secrets
    private let service: String
    private let slots: Int
    private let timeoutMilliseconds: Int
    private let logger: Logger

    public init(endpoint: String, serverKey: String?, secrets: Secrets, service: String, slots: Int = 16,
                timeoutMilliseconds: Int = 5000, logger: Logger) {
        self.endpoint = endpoint
        self.serverKey = serverKey
        self.secrets = secrets
        self.service = service
        self.slots = slots
        self.timeoutMilliseconds = timeoutMilliseconds
        self.logger = logger
    }

    /// Queues `payload` for `command` to `service` (the owning service when nil) in `lane`. Never
    /// blocks; a job its full lane cannot take is dropped (its completion is not called).
    public func enqueue<P: Encodable>(_ command: Command, _ payload: P, to service: String? = nil, lane: Lane,
                                      completion: ((Data?) -> Void)? = nil) {
        let job = Job(service: service ?? command.service.name, command: command, payload: WireCodec.encode(payload), lane: lane,
                      completion: completion)
        lock.lock()
        defer { lock.unlock() }
        guard lanes[lane.rawValue].count < lane.limit else {
            dropped += 1
            let now = Date().timeIntervalSince1970
            if now - droppedReportedAt >= 10 {
                logger.warning("the uplink is full: device reports are dropped", ["lane": "\(lane)", "dropped": dropped])
                droppedReportedAt = now
            }
            return
        }
        lanes[lane.rawValue].append(job)
        lock.signal()
    }

    /// Sends and answers until `stopper` is requested.
    public func run(context: Context, until stopper: Stopper) throws {
        let signer = Signer(service: service, secrets: secrets, forApps: true)
        let clients = try (0..<slots).map { _ in
            try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: timeoutMilliseconds, serverKey: serverKey)
        }
        for client in clients { client.signer = signer }
        var inFlight: [(job: Job, deadline: Int64)?] = Array(repeating: nil, count: slots)
        while !stopper.isRequested {
            let free = inFlight.indices.filter { inFlight[$0] == nil }
            let room = Lane.allCases.map { lane in lane.share(of: slots) - inFlight.count { $0?.job.lane == lane } }
            let jobs = take(free.count, room: room, wait: free.count == slots)
            for (slot, job) in zip(free, jobs) {
                do {
                    try clients[slot].send(job.service, [Data(job.command.name.utf8), job.payload])
                    inFlight[slot] = (job, Clock.milliseconds() + Int64(timeoutMilliseconds))
                } catch {
                    logger.warning("a channel request could not be sent", ["command": job.command.name, "error": error])
                    job.completion?(nil)
                }
            }
            guard inFlight.contains(where: { $0 != nil }) else { continue }
            var poller = Poller(clients.map(\.socket))
            _ = try poller.poll(timeout: 1)
            let now = Clock.milliseconds()
            for slot in inFlight.indices {
                guard let (job, deadline) = inFlight[slot] else { continue }
                if let reply = try? clients[slot].receiveReply() {
                    inFlight[slot] = nil
                    job.completion?(reply.first)
                } else if now > deadline {
                    try? clients[slot].abandon()
                    inFlight[slot] = nil
                    logger.warning("a channel request got no answer in time", ["command": job.command.name])
                    job.completion?(nil)
                }
            }
        }
    }

    /// Up to `count` queued jobs, at most `room[lane]` of each lane, in lane order; when `wait`,
    /// waits up to a tenth of a second for the first.
    private func take(_ count: Int, room: [Int], wait: Bool) -> [Job] {
        lock.lock()
        defer { lock.unlock() }
        if wait && lanes.allSatisfy(\.isEmpty) { _ = lock.wait(until: Date().addingTimeInterval(0.1)) }
        var taken: [Job] = []
        for lane in lanes.indices where taken.count < count {
            taken += lanes[lane].take(max(0, min(count - taken.count, room[lane])))
        }
        return taken
    }
}
