import Bus
import Credentials
import Events
import Foundation
import Majordomo
import Runtime
import SQLite
import Schema
import ZeroMQ

/// The worker's timed work between batches: its counters for `/metrics`, WAL checkpoints, pruning
/// the outbox and the proof ledger, the handler's ticks, and publishing what they committed.
extension ServiceWorker {
    /// Sends this worker's counters to the gateway (`metrics.<service>` on the bus) every two seconds.
    func sendMetricsIfDue(_ socket: Socket) {
        guard Clock.milliseconds() >= nextMetrics else { return }
        nextMetrics = Clock.milliseconds() + Self.metricsMilliseconds
        metrics.batchesRunAgain = storage.store.batchesRunAgain
        metrics.walWriterCheckpoints = storage.store.walWriterCheckpoints
        WorkerMetricsPublisher.send(metrics, on: socket, service: service, key: credential)
    }

    /// The handler's database checkpointed from a thread of its own, unless turned off or in memory.
    func startCheckpointer() throws -> WALCheckpointer? {
        guard options.checkpointMilliseconds > 0, !storage.store.isInMemory else { return nil }
        return try WALCheckpointer(store: storage.store, interval: .milliseconds(options.checkpointMilliseconds),
                                   restartFrames: options.walRestartFrames)
    }

    func pruneProofsIfDue() {
        guard Clock.milliseconds() >= nextProofPrune else { return }
        nextProofPrune = Clock.milliseconds() + 1000
        do {
            try storage.store.write { db in try ledger.prune(now: Int64(Date().timeIntervalSince1970), in: db) }
        } catch {
            logger.warning("proof pruning failed", ["error": error])
        }
    }

    /// Deletes published events older than the retention: once a minute, or, while a backlog is
    /// left, a bounded batch every few milliseconds, so requests keep being served in between.
    func pruneIfDue() {
        pruneProofsIfDue()
        guard Clock.milliseconds() >= nextPrune else { return }
        nextPrune = Clock.milliseconds() + 60_000
        do {
            let cutoff = Date().timeIntervalSince1970 - Double(options.eventRetentionHours) * 3600
            let pruned = try storage.outbox.prune(before: cutoff)
            prunedThisRound += pruned
            if pruned == Outbox.pruneLimit {
                nextPrune = Clock.milliseconds() + 5
                return
            }
            if prunedThisRound > 0 { logger.info("events pruned", ["count": prunedThisRound]) }
            prunedThisRound = 0
        } catch {
            logger.warning("event pruning failed", ["error": error])
        }
    }

    /// Monotonic milliseconds at which the handler wants its next tick (far future when never).
    func nextTickTime() -> Int64 {
        guard let due = handler.nextTick() else { return Int64.max / 2 }
        let wait = max(Clock.milliseconds(), tickPausedUntil) - Clock.milliseconds()
        return Clock.milliseconds() + max(wait, Int64((due.timeIntervalSinceNow * 1000).rounded(.up)))
    }

    func runDueTick(events: Socket) {
        guard Clock.milliseconds() >= tickPausedUntil, let due = handler.nextTick(), due <= Date() else { return }
        do {
            try storage.store.write { db in try handler.tick(now: Date(), in: db) }
        } catch {
            logger.error("timed work failed", ["error": error])
            tickPausedUntil = Clock.milliseconds() + 1000
        }
        publishCommittedEvents(events)
    }

    func publishCommittedEvents(_ socket: Socket) {
        do {
            for event in storage.outbox.takeCommitted() {
                try socket.send(Message([Data(event.topic.utf8), event.event, storage.outbox.seal(event, key: publisherKey)]),
                                wait: false)
                metrics.eventsPublished += 1
            }
        } catch {
            logger.warning("event publish failed", ["error": error])
        }
    }

}

/// A worker's counters on the bus (`metrics.<service>`), sealed with the service's credential so the
/// gateway serves only what the service itself sent.
enum WorkerMetricsPublisher {
    static func send(_ metrics: WorkerMetrics, on socket: Socket, service: String, key: String) {
        let topic = WorkerMetrics.topicPrefix + service
        let counters = WireCodec.encode(metrics)
        let proof = EventSeal.proof(topic: topic, event: counters, publisher: service, key: key)
        try? socket.send(Message([Data(topic.utf8), counters, proof]), wait: false)
    }
}
