import Client
import Credentials
import Caches
import Foundation
import Majordomo
import Runtime
import Schema
import Synchronization
import ZeroMQ

/// A channel process's requests to the bus, on a `BusLoop` of its own: telling devices' shards of
/// connections and acknowledgements, reporting devices' statistics, and handing a shard's messages
/// to the process holding the connections. Any thread may `enqueue`; a fixed number of clients
/// each carry one request at a time (the gateway spreads them over the shards), and each answer is
/// given to its request's completion on the loop's thread. Internal commands are signed as this channel
/// process; a device's own reports (`stats.report`, `page.enter`) as the device, with the key derived
/// from server.key (the device proved itself by its hello).
public final class Uplink: Sendable {
    /// How soon a request goes, and what happens when too many wait.
    public enum Lane: Int, CaseIterable, Sendable {
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

    private let loop: BusLoop
    private let logger: Logger
    /// Requests dropped when last reported, and when.
    private let reported = Mutex((dropped: 0, at: 0.0))

    public init(endpoint: String, serverKey: String?, secrets: Secrets, service: String, slots: Int = 16,
                timeoutMilliseconds: Int = 5000, logger: Logger) throws {
        self.logger = logger
        loop = try BusLoop(name: "channel-uplink", endpoint: endpoint, context: try Context(), serverKey: serverKey, slots: slots,
                           lanes: Lane.allCases.map { BusPool.Lane(share: $0.share(of: slots), limit: $0.limit) },
                           timeoutMilliseconds: timeoutMilliseconds) {
            Signer(service: service, secrets: secrets, forApps: true)
        }
    }

    /// Queues `payload` for `command` to `service` (the owning service when nil) in `lane`. Never
    /// blocks; a job its full lane cannot take is dropped (its completion hears nil), and drops are
    /// logged at most every ten seconds.
    public func enqueue<P: Encodable>(_ command: Command, _ payload: P, to service: String? = nil, lane: Lane,
                                      completion: (@Sendable (Data?) -> Void)? = nil) {
        loop.submit(BusLoop.Request(service: service ?? command.service.name, body: [Data(command.name.utf8), WireCodec.encode(payload)],
                                    lane: lane.rawValue) { reply in completion?(reply) })
        let dropped = loop.refused
        let now = Date().timeIntervalSince1970
        let report = reported.withLock { last -> Bool in
            guard dropped > last.dropped, now - last.at >= 10 else { return false }
            last = (dropped, now)
            return true
        }
        if report { logger.warning("the uplink is full: device reports are dropped", ["dropped": dropped]) }
    }

    /// Sends a device's own request `[command, payload, proof]` exactly as it came (never signed
    /// here: the device proves itself), in the normal lane; `completion` hears the reply frame, or
    /// nil when none came or the lane was full.
    public func relay(_ body: [Data], completion: @escaping @Sendable (Data?) -> Void) {
        loop.submit(BusLoop.Request(service: MDP.deviceService, body: body, lane: Lane.normal.rawValue, relayed: true, completion: completion))
    }

    /// Ends the loop; what waits hears nil.
    public func stop() { loop.stop() }
}
