import Client
import Bus
import Credentials
import Foundation
import JSON
import JWT
import Schema
import SQLite
import Worker

/// The `push` service's commands: accept a push (durable when the reply leaves; the fan-out sends
/// it), check one, report where messages stand, withdraw one, and keep each app's APNs key. A fired
/// local notification (`local.fired`) becomes a push to its device. Works inside the worker's
/// transactions; what it must learn from other services first (whether an audience has a device,
/// a message's receipts) it asks as inquiries, which the worker answers before the transaction.
public final class PushHandler: RequestHandler {
    public let service = Service.push
    public let storage: ServiceStorage
    private let messages = MessageStore()
    private let credentials: CredentialStore
    private let clock: @Sendable () -> Double
    private var nextPrune: Double
    private var nextReport: Double

    static let maxStatusIDs = 100
    static let maxDeviceStatusIDs = 1000
    static let pruneChunk = 5000
    /// Messages told to analytics per tick, how often when all was told, and how soon again when
    /// more are waiting. Statistics may trail by a few seconds; the sends may not: a burst of fired
    /// local notifications (a message each) is told at most 2,500 a second, so the telling (and
    /// analytics' counting) does not take the cores the burst's sends need.
    static let reportChunk = 500
    static let reportInterval = 1.0
    static let reportCatchUp = 0.2

    public init(path: String, secrets: Secrets, publisher: String = "push",
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        storage = try ServiceStorage(path: path, migrations: PushSchema.migrations, publisher: publisher)
        credentials = CredentialStore(secrets: secrets)
        self.clock = clock
        nextPrune = clock()
        nextReport = clock()
    }

    public func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        switch command {
        case .pushSend: try send(request.decode(PushSend.self), answers: request.answers, in: db)
        case .pushValidate: try validate(request.decode(PushSend.self), answers: request.answers, in: db)
        case .pushStatus: try status(request.decode(PushStatusQuery.self), answers: request.answers, in: db)
        case .pushDeviceStatus: try deviceStatus(request.decode(PushDeviceStatusQuery.self), in: db)
        case .pushWithdraw: try withdraw(request.decode(PushWithdraw.self), in: db)
        case .pushList: try list(request.decode(PushListQuery.self), in: db)
        case .pushDeviceHistory: try deviceHistory(request.decode(PushDeviceHistoryQuery.self), in: db)
        case .apnsCredentials: try saveCredentials(request.decode(ApnsCredentials.self), in: db)
        default: throw notHandled(command)
        }
    }

    // MARK: inquiries

    public var inquiring: Set<Command> { [.pushSend, .pushValidate, .pushStatus] }

    /// A push asks whether its audience has a device (refused 1011 when not); `push.status` asks
    /// analytics for the messages' receipts. A push whose fields are wrong is refused here, before
    /// anything is asked.
    public func inquiries(_ command: Command, _ request: Request) throws -> [Inquiry] {
        switch command {
        case .pushSend, .pushValidate:
            let p = try request.decode(PushSend.self)
            let appKey = try Validate.appKey(p.appKey)
            try PushPlan.checkEcho(p)
            return [AudienceProbe.inquiry(for: try PushPlan(p, now: Date(timeIntervalSince1970: clock())).target, appKey: appKey)]
        case .pushStatus:
            let p = try request.decode(PushStatusQuery.self)
            return [Inquiry(.statsMessage, StatsMessage(appKey: try Validate.appKey(p.appKey), msgIDs: try Self.msgIDs(p.msgIDs, max: Self.maxStatusIDs)))]
        default:
            return []
        }
    }

    // MARK: commands

    /// Accepts a push. A `cid` the app used within a day answers that push's msg_id and sends nothing.
    func send(_ p: PushSend, answers: [Inquiry.Answer] = [], in db: Database) throws -> PushAccepted {
        let (appKey, plan) = try check(p, answers: answers, in: db)
        let now = clock()
        if let cid = plan.options.cid, let first = try messages.msgID(db, appKey: appKey, cid: cid, now: now) {
            return PushAccepted(msgID: first, requestID: p.requestID)
        }
        let msgID = try messages.insert(db, appKey: appKey, plan: plan, requestID: p.requestID, now: now)
        if let cid = plan.options.cid { try messages.remember(db, appKey: appKey, cid: cid, msgID: msgID, now: now) }
        return PushAccepted(msgID: msgID, requestID: p.requestID)
    }

    /// Every check of `push.send`, nothing stored or sent.
    func validate(_ p: PushSend, answers: [Inquiry.Answer] = [], in db: Database) throws -> PushAccepted {
        let (_, plan) = try check(p, answers: answers, in: db)
        return PushAccepted(msgID: nil, requestID: p.requestID, preview: plan.content.payload)
    }

    /// The app's messages, newest first, a page at a time.
    func list(_ p: PushListQuery, in db: Database) throws -> PushListReply {
        let appKey = try Validate.appKey(p.appKey)
        let limit = try Self.pageLimit(p.limit)
        var before: Int64?
        if let text = p.before {
            guard let id = Int64(text), id > 0 else { throw CommandError.badField("before must be a msg_id") }
            before = id
        }
        let entries = try messages.list(db, appKey: appKey, before: before, limit: limit + 1)
        let page = Array(entries.prefix(limit))
        return PushListReply(messages: page, next: entries.count > limit ? page.last?.msgID : nil)
    }

    /// A page's size: 20 when not given, else 1...100.
    static func pageLimit(_ given: Int?) throws(CommandError) -> Int {
        let limit = given ?? 20
        guard (1...100).contains(limit) else { throw CommandError.badField("limit must be 1...100") }
        return limit
    }

    /// The messages that went to one device of the app, newest first.
    func deviceHistory(_ p: PushDeviceHistoryQuery, in db: Database) throws -> PushDeviceHistoryReply {
        let appKey = try Validate.appKey(p.appKey)
        let registrationID = try Validate.registrationID(p.registrationID)
        let limit = try Self.pageLimit(p.limit)
        return PushDeviceHistoryReply(deliveries: try messages.deviceHistory(db, appKey: appKey, registrationID: registrationID, limit: limit))
    }

    /// Where each message stands, with analytics' receipts when its answer came (a status without
    /// them still answers: they are filled in as zero).
    func status(_ p: PushStatusQuery, answers: [Inquiry.Answer] = [], in db: Database) throws -> PushStatusReply {
        let appKey = try Validate.appKey(p.appKey)
        let ids = try Self.msgIDs(p.msgIDs, max: Self.maxStatusIDs)
        var found: [String: MessageStatus] = [:]
        for id in ids { found[id] = try messages.status(db, appKey: appKey, msgID: id) }
        if let stats = answers.first, !found.isEmpty {
            for (id, counts) in try stats.decode(MessageStats.self).messages where found[id] != nil {
                found[id]?.received = counts.received
                found[id]?.opened = counts.opened
            }
        }
        return PushStatusReply(messages: found)
    }

    func deviceStatus(_ p: PushDeviceStatusQuery, in db: Database) throws -> PushDeviceStatusReply {
        let appKey = try Validate.appKey(p.appKey)
        let msgID = try Self.msgIDs(p.msgID.map { [$0] }, max: 1)[0]
        guard let ids = p.registrationIDs, !ids.isEmpty else { throw CommandError.missing("registration_ids is missing or empty") }
        guard ids.count <= Self.maxDeviceStatusIDs else {
            throw CommandError.badField("registration_ids names \(ids.count), at most \(Self.maxDeviceStatusIDs)")
        }
        guard let message = try messages.message(db, appKey: appKey, msgID: msgID) else {
            throw CommandError.badField("msg_id \(msgID.prefix(32)) is not a message of this app")
        }
        var devices: [String: DeliveryStatus] = [:]
        for id in ids { devices[id] = try messages.delivery(db, message: message.id, registrationID: id) }
        return PushDeviceStatusReply(devices: devices)
    }

    /// Nothing more is sent for the message; what was sent stays counted.
    func withdraw(_ p: PushWithdraw, in db: Database) throws -> PushWithdrawn {
        let appKey = try Validate.appKey(p.appKey)
        let msgID = try Self.msgIDs(p.msgID.map { [$0] }, max: 1)[0]
        guard let message = try messages.message(db, appKey: appKey, msgID: msgID) else {
            throw CommandError.badField("msg_id \(msgID.prefix(32)) is not a message of this app")
        }
        if message.state != "withdrawn" { try messages.withdraw(db, message: message.id) }
        return PushWithdrawn(msgID: msgID)
    }

    func saveCredentials(_ p: ApnsCredentials, in db: Database) throws -> Empty {
        let appKey = try Validate.appKey(p.appKey)
        let team = try Self.appleID(p.teamID, "team_id")
        let keyID = try Self.appleID(p.keyID, "key_id")
        guard let bundle = p.bundleID, !bundle.isEmpty, bundle.utf8.count <= 155,
              bundle.utf8.allSatisfy({ Validate.isKeyByte($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else {
            throw CommandError.badField("bundle_id must be a bundle identifier such as com.example.app")
        }
        guard let p8 = p.p8, !p8.isEmpty else { throw CommandError.missing("p8 is missing") }
        guard p8.utf8.count <= 4096, (try? ES256Key(pem: p8)) != nil else {
            throw CommandError.badField("p8 is not an APNs auth key: expected the PEM text of a P-256 private key (-----BEGIN PRIVATE KEY-----)")
        }
        try credentials.save(db, appKey: appKey, teamID: team, keyID: keyID, bundleID: bundle, p8: p8, now: clock())
        return Empty()
    }

    // MARK: events

    public var subscriptions: [Topic] { [.localFired] }

    /// A fired local notification goes to its device as an APNs alert with the request's content,
    /// when the app can send (it has an APNs key); otherwise the device shows it by itself.
    public func apply(_ event: BusEvent, in db: Database) throws {
        guard Topic(rawValue: event.topic) == .localFired else { return }
        let fired = try Event<LocalFiredEvent>.read(event.data).body
        guard try credentials.has(db, appKey: fired.appKey) else { return }
        let send = LocalReminder.push(fired)
        // Content that makes no push (nothing to show, or user_info naming `aps`) is not sent, and
        // the error says why in the worker's log ("event not applied"), rather than nothing at all.
        var plan = try PushPlan(send, now: Date(timeIntervalSince1970: clock()))
        if let badge = fired.content.badge { plan.content.fixBadge(badge) }
        _ = try messages.insert(db, appKey: fired.appKey, plan: plan, requestID: nil, now: clock())
    }

    // MARK: timed work

    public func nextTick() -> Date? { Date(timeIntervalSince1970: min(nextPrune, nextReport)) }

    /// Tells analytics what APNs answered since the last time (`push.delivered`, through the outbox,
    /// so each answer is counted once), and forgets idempotency keys past their day.
    public func tick(now: Date, in db: Database) throws {
        let seconds = now.timeIntervalSince1970
        if seconds >= nextReport {
            let events = try messages.takeUnreported(db, limit: Self.reportChunk)
            for event in events { try storage.outbox.append(event, in: db) }
            nextReport = seconds + (events.count >= Self.reportChunk ? Self.reportCatchUp : Self.reportInterval)
        }
        if seconds >= nextPrune {
            let removed = try messages.pruneCids(db, now: seconds, limit: Self.pruneChunk)
            nextPrune = removed >= Self.pruneChunk ? seconds : seconds + 60
        }
    }

    // MARK: helpers

    /// The app and its push, checked: fields, the app's APNs key (unless the push goes over the
    /// device channel only), and (from the inquiry's answer; handler tests ask none) that the
    /// audience has a device (1011).
    private func check(_ p: PushSend, answers: [Inquiry.Answer], in db: Database) throws -> (String, PushPlan) {
        let appKey = try Validate.appKey(p.appKey)
        try PushPlan.checkEcho(p)
        let plan = try PushPlan(p, now: Date(timeIntervalSince1970: clock()))
        guard try plan.content.kind.isChannel || credentials.has(db, appKey: appKey) else {
            throw CommandError.badField("the app has no APNs key: set one with apns.credentials first")
        }
        if let probe = answers.first { try AudienceProbe.checkHasTarget(probe, plan.target) }
        return (appKey, plan)
    }

    private static func msgIDs(_ ids: [String]?, max: Int) throws(CommandError) -> [String] {
        guard let ids, !ids.isEmpty else { throw .missing("msg_id is missing") }
        guard ids.count <= max else { throw .badField("at most \(max) msg_ids, got \(ids.count)") }
        for id in ids where id.isEmpty || id.utf8.count > 32 { throw .badField("a msg_id is empty or longer than 32 bytes") }
        return ids
    }

    /// Apple's 10-character team and key identifiers.
    private static func appleID(_ value: String?, _ field: String) throws(CommandError) -> String {
        guard let value, !value.isEmpty else { throw .missing("\(field) is missing") }
        guard value.utf8.count == 10, value.utf8.allSatisfy({ Validate.isKeyByte($0) }) else {
            throw .badField("\(field) must be Apple's 10-character identifier")
        }
        return value
    }
}
