import Bus
import Credentials
import Events
import Foundation
import Runtime
import SQLite
import Schema
import ZeroMQ

/// Delivers other services' events to a handler exactly once and in order per publisher. The last
/// sequence applied from each publisher is kept in the handler's database, written in the same
/// transaction as the event's effect. An event past a gap (missed on the bus, or sent while this
/// service was down) is not applied: its publisher is marked lagging, and its outbox is asked for
/// everything after the cursor, page by page, until it has nothing more; a publisher that cannot
/// answer is asked again every `retryMilliseconds`. A gap with nothing after it (the last events
/// before a quiet spell, or those sent before the bus carried this service's subscription) shows no
/// gap at all, so every `sweepMilliseconds` the subscription also asks the publishers of its topics
/// (every shard of them the gateway knows) for what follows its cursor. It asks only for its own
/// topics and never asks a service that publishes none of them.
///
/// Every question goes out without waiting (`EventFetcher`) and its answer is applied when it comes,
/// so the worker loop keeps serving requests and heartbeats while a publisher is busy or stuck: a
/// worker that waited on a publisher behind a flood of requests once went silent long enough for
/// the gateway to drop it with a credit's worth of requests in flight. Owned by the worker loop's thread.
final class EventSubscription {
    let follower: EventFollower
    private let fetcher: EventFetcher
    private let handler: any RequestHandler
    private let logger: Logger
    private let cursors = EventCursors()
    private let topics: [String]
    /// The services that publish those topics.
    private let publishers: Set<Substring>
    /// Publishers whose events this service may have missed; at start, every publisher it knows.
    private var lagging: Set<String> = []
    /// Lagging publishers still to ask in this round, first first.
    private var toAsk: [String] = []
    private var nextRetry: Int64 = 0
    private var nextSweep: Int64 = 0
    static let sweepMilliseconds: Int64 = 5000
    /// This worker's own service name: it never asks itself (its loop would be the one to answer).
    private let own: String
    /// Events fetched from publishers after a gap, for the metrics.
    private(set) var caughtUp = 0
    var laggingCount: Int { lagging.count }
    static let retryMilliseconds: Int64 = 2000

    /// Nil when the handler follows no topic.
    init?(handler: any RequestHandler, service: String, options: WorkerOptions, secrets: Secrets, context: Context,
          logger: Logger) throws {
        guard let follower = try EventFollower(topics: handler.subscriptions, endpoint: options.eventsOut, secrets: secrets,
                                               curve: try options.busCurve(secrets), context: context, logger: logger) else { return nil }
        self.follower = follower
        self.handler = handler
        self.logger = logger
        topics = handler.subscriptions.map(\.rawValue)
        publishers = Set(handler.subscriptions.map { Substring($0.publisher.name) })
        own = service
        fetcher = try EventFetcher(endpoint: options.endpoint, context: context, service: service, secrets: secrets,
                                   serverKey: options.curveServerKey)
        lagging = Set(try handler.storage.store.read { db in try EventCursors().publishers(db) }.filter(publishesFollowedTopic))
    }

    func close() { follower.close() }

    /// Applies the events queued on the bus in one transaction.
    func deliverQueued() throws {
        let events = try follower.take()
        guard !events.isEmpty else { return }
        commit(batch: true) { db in
            // Each publisher's cursor is read once and written once for the batch, not per event:
            // the batch is one transaction either way.
            var moved: [String: EventCursors.Position] = [:]
            for event in events { try self.deliver(event, db, &moved) }
            for (publisher, position) in moved { try self.cursors.set(db, publisher: publisher, position) }
        }
    }

    /// Readable when a publisher (or the gateway) has answered a question.
    var fetcherSocket: Socket { fetcher.socket }

    /// Asks the next question when one is due: which publishers exist (every `sweepMilliseconds`),
    /// else the next lagging publisher, in rounds at most every `retryMilliseconds`. Takes an
    /// answer that has come, and gives up on one that is late.
    func catchUpIfDue() {
        takeAnswer()
        guard !fetcher.isWaiting else { return }
        let now = Clock.milliseconds()
        if now >= nextSweep {
            nextSweep = now + Self.sweepMilliseconds
            fetcher.askPublishers()
            return
        }
        if toAsk.isEmpty, !lagging.isEmpty, now >= nextRetry {
            nextRetry = now + Self.retryMilliseconds
            toAsk = lagging.sorted()
        }
        guard !toAsk.isEmpty else { return }
        let publisher = toAsk.removeFirst()
        do {
            fetcher.askEvents(from: publisher, after: try handler.storage.store.read { db in try cursors.position(db, publisher: publisher) }.sequence,
                              topics: topics)
        } catch {
            logger.error("event cursor not read", ["publisher": publisher, "error": error])
        }
    }

    /// Applies the answer that has come, if any.
    func takeAnswer() {
        switch fetcher.answer() {
        case nil: return
        case .publishers(let names):
            let found = Set(names.filter(publishesFollowedTopic)).subtracting(lagging)
            lagging.formUnion(found)
            toAsk += found.sorted()
        case .events(let publisher, let events, let through, let epoch):
            commit { db in
                if try self.applyFetched(publisher, events, through: through, epoch: epoch, db) {
                    self.toAsk.insert(publisher, at: 0)   // it had more: ask again at once
                } else {
                    self.lagging.remove(publisher)
                }
            }
        case .unanswered(let question):
            if case .events(let publisher, _) = question, lagging.contains(publisher) {
                logger.debug("publisher did not answer, asking again later", ["publisher": publisher])
            }
        }
    }

    /// Whether `name` (a service or one of its shards, not this worker's own) publishes a topic we follow.
    private func publishesFollowedTopic(_ name: String) -> Bool {
        name != own && publishers.contains(ShardHash.baseService(of: name))
    }

    /// Monotonic milliseconds of the next catch-up step: a question to give up on, to ask, or a sweep.
    var nextCatchUp: Int64 {
        if let deadline = fetcher.deadline { return deadline }
        if !toAsk.isEmpty { return 0 }
        return lagging.isEmpty ? nextSweep : min(nextRetry, nextSweep)
    }

    /// Runs `body` in one transaction. A `batch` (the events queued on the bus) runs first without a
    /// savepoint for each event, as a batch of requests does (`Store.writeBatch`), and again with
    /// them only when an event failed after it wrote.
    private func commit(batch: Bool = false, _ body: @escaping (Database) throws -> Void) {
        do {
            if batch {
                try handler.storage.store.writeBatch { db in try body(db) }
            } else {
                try handler.storage.store.write { db in try body(db) }
            }
        } catch {
            logger.error("events not applied", ["error": error])
        }
    }

    /// Applies `event` if it is the next of its publisher; `moved` holds the cursors this batch has
    /// moved so far, to be written when it ends.
    private func deliver(_ event: BusEvent, _ db: Database, _ moved: inout [String: EventCursors.Position]) throws {
        guard let publisher = event.publisher, let sequence = event.sequence else {
            try apply(event)
            return
        }
        let cursor = try moved[publisher] ?? cursors.position(db, publisher: publisher)
        if let known = cursor.epoch, let epoch = event.epoch, epoch != known {
            // Another history than the one our cursor counts in: an old event sent again, or the
            // publisher started over. Its own answer to a fetch tells which.
            if markLagging(publisher) {
                logger.warning("event from another epoch, asking its publisher", ["publisher": publisher, "epoch": epoch, "cursor.epoch": known])
            }
            return
        }
        guard sequence > cursor.sequence else { return }
        if sequence > cursor.sequence + 1 {
            if markLagging(publisher) {
                logger.warning("events missed, catching up", ["publisher": publisher, "after": cursor.sequence, "seq": sequence])
            }
            return
        }
        try apply(event)
        moved[publisher] = .init(sequence: sequence, epoch: event.epoch ?? cursor.epoch)
    }

    /// Whether `publisher` was not lagging yet; it is now, and will be asked.
    private func markLagging(_ publisher: String) -> Bool {
        guard lagging.insert(publisher).inserted else { return false }
        toAsk.append(publisher)
        return true
    }

    /// Applies a page fetched from `publisher` past our cursor and moves the cursor to `through`.
    /// Returns whether the publisher should be asked again at once: the page moved the cursor (so
    /// it may hold more), or the publisher's history is a new one (its database was replaced), and
    /// the cursor starts over from 0 in it rather than skipping the events numbered below it.
    private func applyFetched(_ publisher: String, _ events: [BusEvent], through: Int64?, epoch: String?,
                              _ db: Database) throws -> Bool {
        let cursor = try cursors.position(db, publisher: publisher)
        if let epoch, let known = cursor.epoch, epoch != known {
            logger.warning("publisher's history started over, following it from its first event",
                           ["publisher": publisher, "epoch": epoch, "previous.epoch": known, "previous.seq": cursor.sequence])
            try cursors.set(db, publisher: publisher, .init(sequence: 0, epoch: epoch))
            return true
        }
        guard let through, through > cursor.sequence else {
            if cursor.epoch == nil, epoch != nil { try cursors.set(db, publisher: publisher, .init(sequence: cursor.sequence, epoch: epoch)) }
            return false
        }
        for event in events {
            guard let sequence = event.sequence, sequence > cursor.sequence, sequence <= through, topics.contains(event.topic) else { continue }
            try apply(event)
            caughtUp += 1
        }
        try cursors.set(db, publisher: publisher, .init(sequence: through, epoch: epoch ?? cursor.epoch))
        return true
    }

    /// Runs the handler on one event in its own savepoint, a `device.deleted` recorded as a tombstone
    /// first. An event the handler cannot apply is logged and passed over, so one bad event never
    /// stops the stream.
    private func apply(_ event: BusEvent) throws {
        do {
            try handler.storage.store.write { db in
                if event.topic == Topic.deviceDeleted.rawValue {
                    try Tombstones.record(db, registrationID: try event.decode(DeviceDeletedEvent.self).body.registrationID)
                }
                try handler.apply(event, in: db)
            }
        } catch {
            logger.error("event not applied", ["topic": event.topic, "publisher": event.publisher ?? "?", "error": error])
        }
    }
}
