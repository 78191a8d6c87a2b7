import Client
import Credentials
import Foundation
import Runtime
import Schema
import SQLite
import Worker
import ZeroMQ

/// The expanding half of the fan-out, a side loop with its own connection to the push database and
/// its own client of the gateway: turns each accepted message's audience into deliveries a page at
/// a time (committed with the page's cursor, so a restart resumes after the last committed page)
/// while the sending half keeps the senders busy, and rings the sending half's doorbell after each
/// page. It pauses while `--backlog` notifications are due and unsent. Two run: one for messages
/// that name their devices (`direct`: a small push, a fired local notification), one for the
/// others, so a small push never waits behind a page of a broadcast.
public final class Expander: SideLoop {
    public let name: String
    /// Which messages this one expands: those that name their devices, or the others.
    private let direct: Bool
    private let path: String
    private let access: GatewayAccess
    private var store: Store!
    private var gateway: ServiceCaller!
    private var ringer: Socket!
    private let settings: PushSettings
    private let logger: Logger
    private let fanout = FanoutStore()
    private let pagesReady: Doorbell
    private let messages: MessageCache
    /// When a message whose page could not be expanded may be tried again (row id → Unix seconds).
    private var expandAfter: [Int64: Double] = [:]
    /// The app whose page was expanded last, and each app's message expanded last: the turns.
    private var lastApp: String?
    private var lastMessage: [String: Int64] = [:]

    /// What one pass did, and so how soon the next one comes.
    private enum Pass {
        /// A page (or a batch of direct messages) was committed, or a message ended: at once.
        case expanded
        /// No message waits: in `idleMilliseconds`.
        case idle
        /// `--backlog` notifications are due and unsent: in `fullMilliseconds`.
        case backlogFull
    }

    /// `pagesReady` is rung after each page; the sending half (`Fanout`) waits on it.
    /// The messages it expands, decoded, are kept in `messages` for the sending half.
    public init(direct: Bool, path: String, access: GatewayAccess, settings: PushSettings, logger: Logger, pagesReady: Doorbell,
                messages: MessageCache = MessageCache()) {
        self.direct = direct
        name = direct ? "fanout-direct" : "fanout-expand"
        self.path = path
        self.access = access
        self.settings = settings
        self.logger = logger
        self.pagesReady = pagesReady
        self.messages = messages
    }

    public func prepare(context: Context) throws {
        store = try Fanout.openStore(path)
        gateway = try access.caller(context: context)
        ringer = try pagesReady.makeRinger()
    }

    public func finish() { ringer.close() }

    /// Expands a page (then at once again), or between messages looks for new ones every `idleSeconds`.
    public func pass(now: Double) throws -> Double {
        switch try expand(now: now) {
        case .expanded:
            Doorbell.ring(ringer)
            return 0
        case .idle: return Self.idleSeconds
        case .backlogFull: return Self.fullSeconds
        }
    }

    /// How often an idle expander looks for a new message: a fired local notification waits at most this long.
    static let idleSeconds = 0.02
    /// How often it looks again while every app with pages left has `--backlog` notifications
    /// queued: as often as when idle, since another app's push may come any moment and must not
    /// wait for the busy app's backlog (a look is a few index reads).
    static let fullSeconds = 0.02

    /// Expands one page of one app's next open message, or the whole of it and of the direct
    /// messages of that app after it (one `device.tokens` and one transaction for many fired local
    /// notifications). Apps take turns, and so do an app's messages, a page at a time: one app's
    /// broadcast never holds back another app's push, nor its own small pushes, by more than a
    /// page. An app with `--backlog` notifications due and unsent waits its turn out.
    private func expand(now: Double) throws -> Pass {
        let apps = try store.read { db in try fanout.openApps(db, direct: direct) }
        guard !apps.isEmpty else { return .idle }
        let start = lastApp.flatMap { last in apps.firstIndex { $0 > last } } ?? 0
        var open: [FanoutStore.OpenMessage] = []
        for appKey in apps[start...] + apps[..<start] {
            guard try !store.read({ db in try fanout.isBacklogFull(db, appKey: appKey, now: now, limit: settings.backlog) }) else { continue }
            open = try store.read { db in
                try fanout.open(db, appKey: appKey, direct: direct, after: lastMessage[appKey] ?? -1, limit: Self.directBatch)
            }
                .filter { expandAfter[$0.id].map { $0 <= now } ?? true }
            if !open.isEmpty { break }
        }
        guard let first = open.first else { return .backlogFull }
        lastApp = first.appKey
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
            for (message, plan) in batch {
                expandAfter[message.id] = nil
                messages.keep(NotificationBuilder.Message(msgID: message.msgID, appKey: message.appKey, plan: plan, createdAt: message.createdAt),
                              id: message.id)
            }
            lastMessage[first.appKey] = batch.last?.message.id
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
        return .expanded
    }

    /// Direct messages (a device or a few each) expanded together.
    static let directBatch = 1000
}
