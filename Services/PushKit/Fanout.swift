import Client
import Credentials
import Worker
import Foundation
import JSON
import Runtime
import Schema
import SQLite
import ZeroMQ

/// The sending half of the push service, on a thread of its own with its own connection to the
/// push database: expands each accepted message's audience a page at a time into deliveries
/// (committed with the page's cursor, so a restart resumes after the last committed page), hands
/// due deliveries to the `apns` senders with bounded flow, and records every answer: sent, failed
/// by reason, or retried later (429, 5xx, no answer) with backoff honouring `retry-after`. Tokens
/// APNs reports dead are disabled in registration.
///
/// Made on the main thread and then used only by the thread `start` gives it (hence unchecked Sendable).
public final class Fanout: @unchecked Sendable {
    private let store: Store
    private let gateway: ServiceCaller
    private let pool: SenderPool
    private let settings: PushSettings
    private let logger: Logger
    private let fanout = FanoutStore()
    private let notifications: NotificationBuilder
    /// When a message whose page could not be expanded may be tried again (row id → Unix seconds).
    private var expandAfter: [Int64: Double] = [:]

    public init(path: String, secrets: Secrets, endpoint: String, context: Context, serverKey: String?,
                service: String, settings: PushSettings, logger: Logger) throws {
        // Not synced at each commit: a kill loses nothing (the WAL is in the OS), and what a power
        // loss could take back is a last batch of results, whose notifications are then sent again.
        store = try Store(path: path, migrations: ServiceStorage.migrations(PushSchema.migrations), durable: false)
        gateway = try ServiceCaller(endpoint: endpoint, context: context, secrets: secrets, service: service, serverKey: serverKey)
        self.settings = settings
        self.logger = logger
        notifications = NotificationBuilder(credentials: CredentialStore(secrets: secrets))
        pool = try SenderPool(slots: settings.senderSlots, endpoint: endpoint, context: context, secrets: secrets, service: service,
                              serverKey: serverKey, timeout: Double(settings.senderTimeoutSeconds))
    }

    /// Runs the fan-out on a thread of its own for the life of the process (`BackgroundThread`).
    public func start(context: Context) {
        BackgroundThread.start("fanout", logger: logger) { try self.run(until: Stopper(context: context)) }
    }

    /// Runs until `stopper` is requested.
    public func run(until stopper: Stopper) throws {
        try store.write { db in try fanout.releaseLeases(db) }
        let stop = try stopper.makeReceiver()
        defer { stop.close() }
        while !stopper.isRequested {
            let now = Date().timeIntervalSince1970
            do {
                var busy = try collect(now: now)
                busy = try dispatch(now: now) || busy
                busy = try expand(now: now) || busy
                guard !busy else { continue }
                var poller = Poller(pool.sockets + [stop])
                _ = try poller.poll(timeout: try idleMilliseconds(now: now))
            } catch {
                // The database busy past its timeout, say: nothing was committed, so the pass is redone.
                logger.warning("a fan-out pass failed; trying again in a second", ["error": error])
                usleep(1_000_000)
            }
        }
    }

    // MARK: expanding audiences

    /// Expands one page of the oldest open message, or the whole of it and of the direct messages of
    /// its app after it (one `device.tokens` and one transaction for many fired local
    /// notifications), unless enough is queued already. True when it did.
    private func expand(now: Double) throws -> Bool {
        guard try store.read({ db in try backlog(db, now: now) }) < settings.backlog else { return false }
        let open = try store.read { db in try fanout.open(db, limit: Self.directBatch) }
            .filter { expandAfter[$0.id].map { $0 <= now } ?? true }
        guard let first = open.first else { return false }
        let pager = AudiencePager(gateway: gateway, pageSize: settings.pageSize)
        do {
            let plan = try WireCodec.decode(PushPlan.self, from: first.plan)
            var batch: [(message: FanoutStore.OpenMessage, plan: PushPlan)] = [(first, plan)]
            let direct = AudiencePager.isDirect(plan, pageSize: settings.pageSize)
            if direct {
                // As many as one device.tokens takes (a page), oldest first.
                var devices = plan.target.registrationIDs?.count ?? 0
                for message in open.dropFirst() where message.appKey == first.appKey {
                    guard let other = try? WireCodec.decode(PushPlan.self, from: message.plan),
                          AudiencePager.isDirect(other, pageSize: settings.pageSize),
                          devices + (other.target.registrationIDs?.count ?? 0) <= settings.pageSize else { break }
                    devices += other.target.registrationIDs?.count ?? 0
                    batch.append((message, other))
                }
            }
            let pages = direct ? try pager.direct(batch, appKey: first.appKey) : [try pager.next(first, plan: plan)]
            try store.write { db in
                for ((message, _), page) in zip(batch, pages) {
                    try fanout.commitPage(db, message: message.id, deliveries: page.deliveries(now: now), looked: page.looked,
                                          nextCursor: page.nextCursor, total: page.total)
                }
            }
            for (message, _) in batch { expandAfter[message.id] = nil }
        } catch let error as CommandError where error.code != .timeout && error.code != .internalError {
            // A service refused the message's audience for good (it changed since the push was
            // checked): the message ends with what it has, rather than block the ones behind it.
            logger.warning("a message's audience was refused; it ends here", ["msg_id": first.msgID, "code": error.code.rawValue,
                                                                              "message": error.message])
            try store.write { db in
                try fanout.commitPage(db, message: first.id, deliveries: [], looked: 0, nextCursor: nil, total: nil)
            }
        } catch {
            logger.warning("an audience page could not be expanded; trying again in a few seconds",
                           ["msg_id": first.msgID, "error": error])
            expandAfter[first.id] = now + 2
        }
        return true
    }

    /// Direct messages (a device or a few each) expanded together.
    static let directBatch = 256

    /// Due deliveries not yet handed to a sender, counted up to the limit.
    private func backlog(_ db: Database, now: Double) throws -> Int {
        try db.value("SELECT COUNT(*) FROM (SELECT 1 FROM deliveries WHERE status = 0 AND leased = 0 AND due <= ? LIMIT ?)",
                     now, settings.backlog).int ?? 0
    }

    // MARK: sending

    /// Fills the free sender slots with due deliveries, one app per request. True when it sent.
    private func dispatch(now: Double) throws -> Bool {
        let free = pool.freeSlots
        guard free > 0 else { return false }
        let leased = try store.write { db in try fanout.lease(db, now: now, limit: free * settings.batchSize) }
        guard !leased.isEmpty else { return false }
        let built = try store.read { db in try notifications.build(leased, in: db) }
        if !built.unsendable.isEmpty {
            try store.write { db in
                var tally = Tally()
                for (delivery, reason) in built.unsendable {
                    try fanout.failed(db, delivery, reason: reason)
                    tally.failed[delivery.message, default: 0] += 1
                }
                try tally.record(db, fanout)
            }
        }
        var unsent: [FanoutStore.Delivery] = []
        for batch in built.requests.flatMap({ $0.split(into: settings.batchSize) }) {
            if try !pool.send(batch.request, deliveries: batch.deliveries, now: now) { unsent += batch.deliveries }
        }
        if !unsent.isEmpty {
            try store.write { db in for delivery in unsent { try fanout.unlease(db, delivery, due: now) } }
        }
        return true
    }

    /// Records the senders' answers. True when any came.
    private func collect(now: Double) throws -> Bool {
        let (answered, expired) = try pool.collect(now: now)
        guard !answered.isEmpty || !expired.isEmpty else { return false }
        var dead: [String: [InvalidToken]] = [:]
        try store.write { db in
            var tally = Tally()
            for request in expired {
                logger.warning("an apns sender did not answer in time; its notifications are queued again", ["notifications": request.deliveries.count])
                for delivery in request.deliveries { try settle(db, delivery, result: nil, now: now, &tally) }
            }
            for (request, reply) in answered {
                guard let reply, reply.code.isSuccess, let sent = reply.body else {
                    // No sender took it in time, or it could not answer: what became of the
                    // notifications is unknown, so each counts an attempt and is tried again later.
                    logger.warning("apns.send got no answer; its notifications are tried again",
                                   ["code": reply?.code.rawValue ?? -1, "message": reply?.message ?? "unreadable reply"])
                    for delivery in request.deliveries { try settle(db, delivery, result: nil, now: now, &tally) }
                    continue
                }
                let results = Dictionary(sent.results.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                for delivery in request.deliveries {
                    let result = results[NotificationBuilder.id(of: delivery)]
                    if let token = try settle(db, delivery, result: result, now: now, &tally) {
                        dead[token.appKey, default: []].append(token.dead)
                    }
                }
            }
            try tally.record(db, fanout)
        }
        for (appKey, tokens) in dead { disable(tokens, appKey: appKey) }
        return true
    }

    /// Records one answer (nil: none came) and counts it in `tally`; returns the token to disable
    /// when APNs says it is dead.
    private func settle(_ db: Database, _ delivery: FanoutStore.Delivery, result: ApnsResult?, now: Double,
                        _ tally: inout Tally) throws -> (appKey: String, dead: InvalidToken)? {
        switch ApnsOutcome(result, attempts: delivery.attempts + 1, maxAttempts: settings.maxAttempts, now: now) {
        case .sent:
            try fanout.sent(db, delivery)
            tally.sent[delivery.message, default: 0] += 1
        case .retry(let after):
            try fanout.retry(db, delivery, due: now + after)
        case .failed(let reason, let tokenDeadSince):
            try fanout.failed(db, delivery, reason: reason)
            tally.failed[delivery.message, default: 0] += 1
            guard let tokenDeadSince, let message = notifications.cached(delivery.message) else { return nil }
            return (message.appKey, InvalidToken(registrationID: delivery.registrationID, token: delivery.token,
                                                 kind: message.plan.content.kind.tokenKind, since: tokenDeadSince))
        }
        return nil
    }

    /// What one pass ended, per message, written to the messages once per pass.
    private struct Tally {
        var sent: [Int64: Int] = [:]
        var failed: [Int64: Int] = [:]

        func record(_ db: Database, _ fanout: FanoutStore) throws {
            for message in Set(sent.keys).union(failed.keys) {
                try fanout.tally(db, message: message, sent: sent[message] ?? 0, failed: failed[message] ?? 0)
            }
        }
    }

    /// Tells registration to disable dead tokens, a page at a time; a failure is logged, and the
    /// next push to the token tells again.
    private func disable(_ tokens: [InvalidToken], appKey: String) {
        for start in stride(from: 0, to: tokens.count, by: 1000) {
            let page = Array(tokens[start..<min(start + 1000, tokens.count)])
            do {
                _ = try gateway.call(.deviceTokensInvalid, DeviceTokensInvalid(appKey: appKey, tokens: page), as: TokensDisabled.self)
            } catch {
                logger.warning("dead APNs tokens could not be disabled in registration", ["tokens": page.count, "error": error])
            }
        }
    }

    /// How long to wait for an answer when there is nothing else to do: until the next retry falls
    /// due, at most a tenth of a second (a new message may have come).
    private func idleMilliseconds(now: Double) throws -> Int {
        guard let due = try store.read({ db in try fanout.nextDue(db) }) else { return 100 }
        return max(1, min(100, Int((due - now) * 1000)))
    }
}
