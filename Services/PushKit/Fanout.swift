import Client
import Credentials
import Worker
import Foundation
import JSON
import Runtime
import Schema
import SQLite
import ZeroMQ

/// The sending half of the push service, on two threads of its own, each with its own connection
/// to the push database: the `Expander` turns each accepted message's audience into deliveries a
/// page at a time, and this one hands due deliveries to the `apns` senders with bounded flow and
/// records every answer: sent, failed by reason, or retried later (429, 5xx, no answer) with
/// backoff honouring `retry-after`. Tokens APNs reports dead are disabled in registration. Two
/// threads, so that the senders are kept busy while a page's bus calls are waited on.
///
/// Made on the main thread and then used only by the sending thread `start` gives it (hence unchecked Sendable).
public final class Fanout: @unchecked Sendable {
    private let store: Store
    private let gateway: ServiceCaller
    private let pool: SenderPool
    private let settings: PushSettings
    private let logger: Logger
    private let fanout = FanoutStore()
    private let notifications: NotificationBuilder
    private let expander: Expander
    /// Rung by the expander after each page it commits.
    private let pagesReady: Doorbell

    public init(path: String, secrets: Secrets, endpoint: String, context: Context, serverKey: String?,
                service: String, settings: PushSettings, logger: Logger) throws {
        // Not synced at each commit: a kill loses nothing (the WAL is in the OS), and what a power
        // loss could take back is a last batch of results, whose notifications are then sent again.
        store = try Self.openStore(path)
        gateway = try ServiceCaller(endpoint: endpoint, context: context, secrets: secrets, service: service, serverKey: serverKey)
        pagesReady = Doorbell(context: context)
        expander = Expander(store: try Self.openStore(path),
                            gateway: try ServiceCaller(endpoint: endpoint, context: context, secrets: secrets, service: service, serverKey: serverKey),
                            settings: settings, logger: logger, pagesReady: pagesReady)
        self.settings = settings
        self.logger = logger
        notifications = NotificationBuilder(credentials: CredentialStore(secrets: secrets))
        pool = try SenderPool(slots: settings.senderSlots, endpoint: endpoint, context: context, secrets: secrets, service: service,
                              serverKey: serverKey, timeout: Double(settings.senderTimeoutSeconds))
    }

    private static func openStore(_ path: String) throws -> Store {
        try Store(path: path, migrations: ServiceStorage.migrations(PushSchema.migrations), durable: false)
    }

    /// Runs the fan-out's two threads for the life of the process (`BackgroundThread`).
    public func start(context: Context) throws {
        // Leases left by a process that stopped are released before either thread starts.
        try store.write { db in try fanout.releaseLeases(db) }
        BackgroundThread.start("fanout-expand", logger: logger) { try self.expander.run(until: Stopper(context: context)) }
        BackgroundThread.start("fanout-send", logger: logger) { try self.run(until: Stopper(context: context)) }
    }

    /// Sends and records answers until `stopper` is requested.
    private func run(until stopper: Stopper) throws {
        let stop = try stopper.makeReceiver()
        let pages = try pagesReady.makeReceiver()
        defer { stop.close(); pages.close() }
        while !stopper.isRequested {
            let now = Date().timeIntervalSince1970
            do {
                var busy = try collect(now: now)
                busy = try dispatch(now: now) || busy
                guard !busy else { continue }
                var poller = Poller(pool.sockets + [stop, pages])
                if try poller.poll(timeout: try idleMilliseconds(now: now)).contains(pages) { Doorbell.drain(pages) }
            } catch {
                // The database busy past its timeout, say: nothing was committed, so the pass is redone.
                logger.warning("a fan-out pass failed; trying again in a second", ["error": error])
                usleep(1_000_000)
            }
        }
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
            if try !pool.send(.apnsSend, batch.request, deliveries: batch.deliveries, now: now) { unsent += batch.deliveries }
        }
        for batch in built.channel {
            if try !pool.send(.liveDeliver, batch.request, deliveries: batch.deliveries, now: now) { unsent += batch.deliveries }
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
            for (request, body) in answered {
                if request.command == .liveDeliver {
                    try settleChannel(db, request, body.flatMap { try? WireCodec.decode(Reply<LiveDelivered>.self, from: $0) }, now: now, &tally)
                    continue
                }
                let reply = body.flatMap { try? WireCodec.decode(Reply<ApnsSent>.self, from: $0) }
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

    /// Records a `live.deliver` answer: a device whose message the channel keeps counts as sent, one
    /// it could not take (not connected for a time_to_live of 0, unknown) as failed; no answer
    /// counts an attempt and is tried again.
    private func settleChannel(_ db: Database, _ request: SenderPool.InFlight, _ reply: Reply<LiveDelivered>?, now: Double,
                               _ tally: inout Tally) throws {
        for delivery in request.deliveries {
            guard let reply, reply.code.isSuccess, let devices = reply.body?.devices else {
                _ = try settle(db, delivery, result: nil, now: now, &tally)
                continue
            }
            if devices[delivery.registrationID] == "queued" {
                try fanout.sent(db, delivery)
                tally.sent[delivery.message, default: 0] += 1
            } else {
                try fanout.failed(db, delivery, reason: devices[delivery.registrationID] == "offline" ? "Offline" : "UnknownDevice")
                tally.failed[delivery.message, default: 0] += 1
            }
        }
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
