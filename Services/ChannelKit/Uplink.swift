import Client
import Credentials
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
        let completion: ((Data?) -> Void)?
    }

    private let lock = NSCondition()
    /// What a device waits for (its messages on their way to another channel process, its
    /// attachment), sent before the rest (acknowledgements, reports), which a broadcast's thousands
    /// of acknowledgements would otherwise hold up.
    private var urgent: [Job] = []
    private var queue: [Job] = []
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

    /// Queues `payload` for `command` to `service` (the owning service when nil), `urgent` ahead of
    /// the rest. Never blocks.
    public func enqueue<P: Encodable>(_ command: Command, _ payload: P, to service: String? = nil, urgent: Bool = false,
                                      completion: ((Data?) -> Void)? = nil) {
        let job = Job(service: service ?? command.service.name, command: command, payload: WireCodec.encode(payload), completion: completion)
        lock.lock()
        if urgent { self.urgent.append(job) } else { queue.append(job) }
        lock.signal()
        lock.unlock()
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
            let jobs = take(free.count, wait: free.count == slots)
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

    /// Up to `count` queued jobs; when `wait`, waits up to a tenth of a second for the first.
    private func take(_ count: Int, wait: Bool) -> [Job] {
        lock.lock()
        defer { lock.unlock() }
        if wait && queue.isEmpty && urgent.isEmpty { _ = lock.wait(until: Date().addingTimeInterval(0.1)) }
        var taken = Array(urgent.prefix(count))
        urgent.removeFirst(taken.count)
        let rest = Array(queue.prefix(count - taken.count))
        queue.removeFirst(rest.count)
        taken += rest
        return taken
    }
}
