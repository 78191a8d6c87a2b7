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
        store = try Store(path: path, migrations: ServiceStorage.migrations(PushSchema.migrations))
        gateway = try ServiceCaller(endpoint: endpoint, context: context, secrets: secrets, service: service, serverKey: serverKey)
        self.settings = settings
        self.logger = logger
        notifications = NotificationBuilder(credentials: CredentialStore(secrets: secrets))
        pool = try SenderPool(slots: settings.senderSlots, endpoint: endpoint, context: context, secrets: secrets, service: service,
                              serverKey: serverKey, timeout: Double(settings.senderTimeoutSeconds))
    }

    /// Runs the fan-out on a thread of its own for the life of the process; a failure stops the
    /// process (exit 1), so that whatever supervises it starts it again.
    public func start(context: Context) {
        let thread = Thread {
            do { try self.run(until: Stopper(context: context)) } catch {
                self.logger.error("the fan-out failed; the process stops so that it restarts", ["error": error])
                exit(1)
            }
        }
        thread.name = "fanout"
        thread.start()
    }

    /// Runs until `stopper` is requested.
    public func run(until stopper: Stopper) throws {
        try store.write { db in try fanout.releaseLeases(db) }
        let stop = try stopper.makeReceiver()
        defer { stop.close() }
        while !stopper.isRequested {
            let now = Date().timeIntervalSince1970
            var busy = try collect(now: now)
            busy = try dispatch(now: now) || busy
            busy = try expand(now: now) || busy
            guard !busy else { continue }
            var poller = Poller(pool.sockets + [stop])
            _ = try poller.poll(timeout: try idleMilliseconds(now: now))
        }
    }

    // MARK: expanding audiences

    /// Expands one page of the oldest open message, unless enough is queued already. True when it did.
    private func expand(now: Double) throws -> Bool {
        guard try store.read({ db in try backlog(db, now: now) }) < settings.backlog,
              let message = try store.read({ db in try fanout.nextOpen(db) }),
              expandAfter[message.id].map({ $0 <= now }) ?? true else { return false }
        do {
            let page = try AudiencePager(gateway: gateway, pageSize: settings.pageSize).next(message)
            try store.write { db in
                try fanout.commitPage(db, message: message.id, deliveries: page.deliveries(now: now), looked: page.looked,
                                      nextCursor: page.nextCursor, total: page.total)
            }
            expandAfter[message.id] = nil
        } catch {
            logger.warning("an audience page could not be expanded; trying again in a few seconds",
                           ["msg_id": message.msgID, "error": error])
            expandAfter[message.id] = now + 2
        }
        return true
    }

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
                for (delivery, reason) in built.unsendable {
                    try fanout.failed(db, delivery, reason: reason)
                    try fanout.finishIfDone(db, message: delivery.message)
                }
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
            for request in expired {
                logger.warning("an apns sender did not answer in time; its notifications are queued again", ["notifications": request.deliveries.count])
                for delivery in request.deliveries { try settle(db, delivery, result: nil, now: now) }
            }
            for (request, reply) in answered {
                guard let reply, reply.code.isSuccess, let sent = reply.body else {
                    logger.warning("apns.send was refused; its notifications are queued again",
                                   ["code": reply?.code.rawValue ?? -1, "message": reply?.message ?? "unreadable reply"])
                    for delivery in request.deliveries { try fanout.unlease(db, delivery, due: now + 1) }
                    continue
                }
                let results = Dictionary(sent.results.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                for delivery in request.deliveries {
                    let result = results[NotificationBuilder.id(of: delivery)]
                    if let token = try settle(db, delivery, result: result, now: now) {
                        dead[token.appKey, default: []].append(token.dead)
                    }
                }
            }
        }
        for (appKey, tokens) in dead { disable(tokens, appKey: appKey) }
        return true
    }

    /// Records one answer (nil: none came); returns the token to disable when APNs says it is dead.
    @discardableResult
    private func settle(_ db: Database, _ delivery: FanoutStore.Delivery, result: ApnsResult?, now: Double) throws -> (appKey: String, dead: InvalidToken)? {
        defer { try? fanout.finishIfDone(db, message: delivery.message) }
        switch ApnsOutcome(result, attempts: delivery.attempts + 1, maxAttempts: settings.maxAttempts, now: now) {
        case .sent:
            try fanout.sent(db, delivery)
        case .retry(let after):
            try fanout.retry(db, delivery, due: now + after)
        case .failed(let reason, let tokenDeadSince):
            try fanout.failed(db, delivery, reason: reason)
            guard let tokenDeadSince, let message = notifications.cached(delivery.message) else { return nil }
            return (message.appKey, InvalidToken(registrationID: delivery.registrationID, token: delivery.token,
                                                 kind: message.plan.content.kind.tokenKind, since: tokenDeadSince))
        }
        return nil
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
