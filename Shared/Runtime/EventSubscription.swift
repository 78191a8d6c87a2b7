import Credentials
import Foundation
import Schema
import SQLite
import ZeroMQ

/// Delivers other services' events to a handler exactly once and in order per publisher. The last
/// sequence applied from each publisher is kept in the handler's database, written in the same
/// transaction as the event's effect. An event past a gap (missed on the bus, or sent while this
/// service was down) first fetches the missing ones from the publisher's outbox; if the publisher
/// cannot answer, the publisher is marked lagging and retried every `retryMilliseconds`, and nothing
/// past the gap is applied before the gap is filled. A gap with nothing after it (the last events
/// before a quiet spell, or those sent before the bus carried this service's subscription) shows no
/// gap at all, so every `sweepMilliseconds` the subscription also asks the publishers of its topics
/// (every shard of them the gateway knows) for what follows its cursor. It asks only for its own
/// topics and never asks a service that publishes none of them, so two services (or two shards of
/// one) never wait on each other. Owned by the worker loop's thread.
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
    init?(handler: any RequestHandler, service: String, options: WorkerOptions, context: Context, logger: Logger) throws {
        guard let follower = try EventFollower(topics: handler.subscriptions, endpoint: options.eventsOut,
                                               context: context, logger: logger) else { return nil }
        self.follower = follower
        self.handler = handler
        self.logger = logger
        topics = handler.subscriptions.map(\.rawValue)
        publishers = Set(handler.subscriptions.map { Substring($0.publisher.name) })
        own = service
        fetcher = try EventFetcher(endpoint: options.broker, context: context,
                                   secrets: try Secrets.load(directory: options.dataDirectory), serverKey: options.curveServerKey)
        lagging = Set(try handler.store.read { db in try EventCursors().publishers(db) }.filter(publishesFollowedTopic))
    }

    func close() { follower.close() }

    /// Applies the events queued on the bus in one transaction.
    func deliverQueued() throws {
        let events = try follower.take()
        guard !events.isEmpty else { return }
        commit { db in
            for event in events { try self.deliver(event, db) }
        }
    }

    /// Fetches what lagging publishers hold for us, at most every `retryMilliseconds`; every
    /// `sweepMilliseconds` every service the gateway knows counts as lagging.
    func catchUpIfDue() {
        if Clock.milliseconds() >= nextSweep {
            nextSweep = Clock.milliseconds() + Self.sweepMilliseconds
            lagging.formUnion(fetcher.publishers().filter(publishesFollowedTopic))
        }
        guard !lagging.isEmpty, Clock.milliseconds() >= nextRetry else { return }
        nextRetry = Clock.milliseconds() + Self.retryMilliseconds
        commit { db in
            for publisher in self.lagging.sorted() where try self.catchUp(publisher, db, through: nil) {
                self.lagging.remove(publisher)
            }
        }
    }

    /// Whether `name` (a service or one of its shards, not this worker's own) publishes a topic we follow.
    private func publishesFollowedTopic(_ name: String) -> Bool {
        name != own && publishers.contains(ShardHash.baseService(of: name))
    }

    /// Monotonic milliseconds of the next catch-up attempt or sweep.
    var nextCatchUp: Int64 { lagging.isEmpty ? nextSweep : min(nextRetry, nextSweep) }

    private func commit(_ body: @escaping (Database) throws -> Void) {
        do {
            try handler.store.write { db in try body(db) }
        } catch {
            logger.error("events not applied", ["error": error])
        }
    }

    private func deliver(_ event: BusEvent, _ db: Database) throws {
        guard let publisher = event.publisher, let sequence = event.sequence else {
            try apply(event)
            return
        }
        let last = try cursors.last(db, publisher: publisher)
        guard sequence > last else { return }
        if sequence > last + 1 {
            guard try catchUp(publisher, db, through: sequence - 1) else {
                if lagging.insert(publisher).inserted {
                    logger.warning("events missed, catching up later", ["publisher": publisher, "after": last, "seq": sequence])
                }
                return
            }
        }
        try apply(event)
        try cursors.set(db, publisher: publisher, sequence: sequence)
    }

    /// Fetches and applies the publisher's events after our cursor, through `last` (or all it has).
    /// Returns whether it got that far.
    private func catchUp(_ publisher: String, _ db: Database, through last: Int64?) throws -> Bool {
        while true {
            let cursor = try cursors.last(db, publisher: publisher)
            if let last, cursor >= last { return true }
            guard let page = fetcher.fetch(from: publisher, after: cursor, topics: topics) else { return false }
            guard let through = page.through, through > cursor else { return last == nil }
            for event in page.events {
                guard let sequence = event.sequence, sequence > cursor else { continue }
                if let last, sequence > last { break }
                guard topics.contains(event.topic) else { continue }
                try apply(event)
                caughtUp += 1
            }
            try cursors.set(db, publisher: publisher, sequence: last.map { min($0, through) } ?? through)
        }
    }

    /// Runs the handler on one event in its own savepoint. An event the handler cannot apply is
    /// logged and passed over, so one bad event never stops the stream.
    private func apply(_ event: BusEvent) throws {
        do {
            try handler.store.write { _ in try handler.apply(event) }
        } catch {
            logger.error("event not applied", ["topic": event.topic, "publisher": event.publisher ?? "?", "error": error])
        }
    }
}
