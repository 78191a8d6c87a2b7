import Client
import Credentials
import Worker
import Foundation
import JSON
import Runtime
import Schema
import SQLite
import ZeroMQ

/// The sending half of the push service, a side loop with its own connection to the push database:
/// hands due deliveries to the `apns` senders (and the device channel) through a `BusPool` whose
/// slots are the flow control (never more than `slots × batch` notifications unanswered), and
/// records every answer: sent, failed by reason, or retried later (429, 5xx, no answer) with backoff
/// honouring `retry-after`. Tokens APNs reports dead are disabled in registration. The `Expander`,
/// another side loop, turns audiences into deliveries meanwhile, so the senders are kept busy while
/// a page's bus calls are waited on.
public final class Fanout: SideLoop {
    public let name = "fanout-send"
    private let path: String
    private let access: GatewayAccess
    private var store: Store!
    private var gateway: ServiceCaller!
    private var pool: BusPool!
    private var pages: Socket!
    private let settings: PushSettings
    private let logger: Logger
    private let fanout = FanoutStore()
    private let notifications: NotificationBuilder
    /// Rung by the expander after each page it commits.
    private let pagesReady: Doorbell
    /// The app served last by the lease: the next lease starts with the one after it.
    private var lastApp: String?
    /// Requests out to the senders per app.
    private var holding: [String: Int] = [:]
    /// The answers the pool's completions handed over in this pass, recorded together.
    private var answered: [(request: InFlight, reply: Data?)] = []

    /// One request out to the senders: its command and the deliveries it carries.
    struct InFlight {
        let command: Command
        let deliveries: [FanoutStore.Delivery]
    }

    public init(path: String, access: GatewayAccess, settings: PushSettings, logger: Logger, pagesReady: Doorbell,
                messages: MessageCache = MessageCache()) {
        self.path = path
        self.access = access
        self.settings = settings
        self.logger = logger
        self.pagesReady = pagesReady
        notifications = NotificationBuilder(credentials: CredentialStore(secrets: access.secrets), messages: messages)
    }

    /// Not synced at each commit: a kill loses nothing (the WAL is in the OS), and what a power loss
    /// could take back is a last batch of results, whose notifications are then sent again.
    static func openStore(_ path: String) throws -> Store {
        try Store(path: path, migrations: ServiceStorage.migrations(PushSchema.migrations), durable: false)
    }

    /// Its store, its clients, and the leases a process that stopped left behind, released.
    public func prepare(context: Context) throws {
        store = try Self.openStore(path)
        gateway = try access.caller(context: context)
        pool = try access.pool(context: context, slots: settings.senderSlots, timeoutMilliseconds: settings.senderTimeoutSeconds * 1000)
        pages = try pagesReady.makeReceiver()
        try store.write { db in try fanout.releaseLeases(db) }
    }

    public var sockets: [Socket] { pool.sockets + [pages] }

    public func finish() {
        pool.cancelAll()
        pages.close()
    }

    /// Records the senders' answers and fills the free slots; at once again while there was work,
    /// else when the next retry falls due (a tenth of a second at most: a new page may have come).
    public func pass(now: Double) throws -> Double {
        Doorbell.drain(pages)
        pool.service(now: Clock.milliseconds())
        var busy = try collect(now: now)
        busy = try dispatch(now: now) || busy
        pool.service(now: Clock.milliseconds())
        return busy ? 0 : try idleSeconds(now: now)
    }

    // MARK: sending

    /// Fills the free sender slots with due deliveries, one app per request. True when it sent.
    private func dispatch(now: Double) throws -> Bool {
        let free = pool.freeSlots
        guard free > 0 else { return false }
        // The slots but two are shared by the apps with requests out, this one counted: alone, an
        // app may hold them all (up to `appInFlight` notifications); with others, its part. So an
        // app that starts a push finds a slot free, or the next one freed, however many apps are
        // busy (one app's broadcast, or ten).
        let (leased, last) = try store.write { db in
            try fanout.lease(db, now: now, limit: free * settings.batchSize, quantum: settings.batchSize, after: lastApp) { app in
                let sending = holding.count + (holding[app] == nil ? 1 : 0)
                let share = min(settings.appSlots, max(1, (settings.senderSlots - 2) / sending))
                return max(0, share - holding[app, default: 0]) * settings.batchSize
            }
        }
        lastApp = last
        guard !leased.isEmpty else { return false }
        let built = try store.read { db in try notifications.build(leased, in: db) }
        if !built.unsendable.isEmpty {
            try store.write { db in
                var tally = Tally()
                for (delivery, reason) in built.unsendable {
                    try fanout.failed(db, delivery, reason: reason, at: now)
                    tally.failed[delivery.message, default: 0] += 1
                }
                try tally.record(db, fanout, now: now)
            }
        }
        for batch in built.requests.flatMap({ $0.split(into: settings.batchSize) }) {
            submit(.apnsSend, batch.request, batch.deliveries)
        }
        for batch in built.channel { submit(.liveDeliver, batch.request, batch.deliveries) }
        return true
    }

    private func submit<Request: Encodable>(_ command: Command, _ request: Request, _ deliveries: [FanoutStore.Delivery]) {
        let inFlight = InFlight(command: command, deliveries: deliveries)
        let app = deliveries.first?.appKey ?? ""
        holding[app, default: 0] += 1
        pool.submit(BusPool.Job(service: command.service.name, body: [Data(command.name.utf8), WireCodec.encode(request)]) { [unowned self] reply in
            holding[app, default: 1] -= 1
            if holding[app] == 0 { holding[app] = nil }
            answered.append((inFlight, reply))
        })
    }

    /// Records the senders' answers. True when any came.
    private func collect(now: Double) throws -> Bool {
        guard !answered.isEmpty else { return false }
        let answers = answered
        answered = []
        var dead: [String: [InvalidToken]] = [:]
        try store.write { db in
            var tally = Tally()
            for (request, body) in answers {
                if request.command == .liveDeliver {
                    try settleChannel(db, request, body.flatMap { try? WireCodec.decode(Reply<LiveDelivered>.self, from: $0) }, now: now, &tally)
                    continue
                }
                let reply = body.flatMap { try? WireCodec.decode(Reply<ApnsSent>.self, from: $0) }
                guard let reply, reply.code.isSuccess, let sent = reply.body else {
                    // No sender took it in time, or it could not answer (or the pool gave up on
                    // it at its deadline): what became of the notifications is unknown, so each
                    // counts an attempt and is tried again later.
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
            try tally.record(db, fanout, now: now)
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
            tally.sentDeliveries.append(delivery.id)
            tally.sent[delivery.message, default: 0] += 1
        case .retry(let after):
            try fanout.retry(db, delivery, due: now + after)
        case .wait(let after):
            try fanout.unlease(db, delivery, due: now + after)
        case .failed(let reason, let tokenDeadSince):
            try fanout.failed(db, delivery, reason: reason, at: now)
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
    private func settleChannel(_ db: Database, _ request: InFlight, _ reply: Reply<LiveDelivered>?, now: Double,
                               _ tally: inout Tally) throws {
        for delivery in request.deliveries {
            guard let reply, reply.code.isSuccess, let devices = reply.body?.devices else {
                _ = try settle(db, delivery, result: nil, now: now, &tally)
                continue
            }
            if devices[delivery.registrationID] == "queued" {
                tally.sentDeliveries.append(delivery.id)
                tally.sent[delivery.message, default: 0] += 1
            } else {
                try fanout.failed(db, delivery, reason: devices[delivery.registrationID] == "offline" ? "Offline" : "UnknownDevice", at: now)
                tally.failed[delivery.message, default: 0] += 1
            }
        }
    }

    /// What one pass ended: the deliveries sent, marked together, and per message the counts,
    /// written to the messages once per pass.
    private struct Tally {
        var sentDeliveries: [Int64] = []
        var sent: [Int64: Int] = [:]
        var failed: [Int64: Int] = [:]

        func record(_ db: Database, _ fanout: FanoutStore, now: Double) throws {
            try fanout.sent(db, ids: sentDeliveries, at: now)
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
    private func idleSeconds(now: Double) throws -> Double {
        guard let due = try store.read({ db in try fanout.nextDue(db) }) else { return 0.1 }
        return max(0.001, min(0.1, due - now))
    }
}
