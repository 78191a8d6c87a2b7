import Bus
import Foundation
import JSON
import Schema
import SQLite
import WireTime
import Worker

/// Where a shard's messages for connected devices go once they are committed: to the channel
/// process that holds each connection (this one, or another through the bus).
public protocol LiveOutlet: AnyObject {
    func push(_ push: LivePush, toHost host: Int)
}

/// One channel shard: the mailboxes and presence of the devices that hash to it. It stores what
/// `push` hands it (`live.deliver`), hears where its devices connect and what they acknowledge
/// from the channel processes that hold their connections (`live.attach`, `live.ack`…), shows
/// in-app messages when a device reports a target page, and answers `devices.status`. What a
/// committed change sends to a connection goes through the `LiveOutlet` after the commit.
public final class ChannelHandler: RequestHandler {
    public let service = Service.channel
    public let storage: ServiceStorage
    /// Most devices one `live.deliver` may name.
    public static let maxDevicesPerDelivery = 1000
    static let pruneInterval = 60.0
    static let pruneChunk = 5000

    private let mailbox = Mailbox()
    private let presence = Presence()
    private let outlet: LiveOutlet
    private let clock: @Sendable () -> Double
    private var nextPrune: Double

    public init(path: String, publisher: String = "channel", outlet: LiveOutlet,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        storage = try ServiceStorage(path: path, migrations: ChannelSchema.migrations, publisher: publisher)
        self.outlet = outlet
        self.clock = clock
        nextPrune = clock()
    }

    public func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        switch command {
        case .liveDeliver: try deliver(request.decode(LiveDeliver.self), in: db)
        case .liveAttach: try attach(request.decode(LiveAttach.self), in: db)
        case .liveDetach: try detach(request.decode(LiveDetach.self), in: db)
        case .liveAck: try acknowledge(request.decode(LiveAck.self), in: db)
        case .liveMore: try more(request.decode(LiveMore.self), in: db)
        case .livePush: try pass(request.decode(LivePush.self))
        case .liveReset: try reset(request.decode(LiveReset.self), in: db)
        case .pageEnter: try page(request.decode(PageReport.self), entering: true, in: db)
        case .pageLeave: try page(request.decode(PageReport.self), entering: false, in: db)
        case .devicesStatus: try status(request.decode(DevicesStatusQuery.self), in: db)
        default: throw notHandled(command)
        }
    }

    // MARK: messages in

    /// Stores one message for each device named (once per device and msg_id), and sends it at once
    /// to those connected: an in-app message only to a device on one of its pages.
    func deliver(_ p: LiveDeliver, in db: Database) throws -> LiveDelivered {
        let appKey = try Validate.appKey(p.appKey)
        let msgID = try Validate.required(p.msgID, "msg_id", maxBytes: 64)
        guard let kind = p.kind else { throw CommandError.empty("kind is missing") }
        guard let message = p.content, case .object = message else { throw CommandError.invalid("content must be an object") }
        let ids = p.registrationIDs ?? []
        guard ids.count <= Self.maxDevicesPerDelivery else { throw CommandError.invalid("at most \(Self.maxDevicesPerDelivery) registration_ids") }
        let content = String(decoding: WireCodec.encode(p.content), as: UTF8.self)
        let target = p.target.map { String(decoding: WireCodec.encode($0), as: UTF8.self) }
        let now = clock()
        let onlyConnected = (p.expiresAt ?? 0) <= 0
        var devices: [String: String] = [:]
        var sends: [Int: [LivePush.Send]] = [:]
        for id in ids {
            let registrationID = try Validate.registrationID(id)
            guard try !Tombstones.contains(db, registrationID: registrationID) else {
                devices[registrationID] = "unknown"
                continue
            }
            let record = try presence.record(db, registrationID: registrationID)
            let at = record?.appKey == appKey ? record?.at : nil
            if onlyConnected && at == nil {
                devices[registrationID] = "offline"
                continue
            }
            devices[registrationID] = "queued"
            guard let entry = try mailbox.store(db, registrationID: registrationID, appKey: appKey, msgID: msgID, kind: kind,
                                                content: message, text: content, target: target,
                                                expiresAt: onlyConnected ? now : p.expiresAt ?? now,
                                                now: now),
                  let at else { continue }
            if kind == .inapp {
                guard Mailbox.shows(target: target, on: record?.page) else { continue }
                try mailbox.markShown(db, seq: entry.seq)
            }
            sends[at.host, default: []].append(LivePush.Send(registrationID: registrationID, at: at, entries: [entry]))
        }
        for (host, list) in sends { send(LivePush(sends: list), toHost: host) }
        return LiveDelivered(devices: devices)
    }

    // MARK: connections

    /// A device proved itself on a connection: refused when it was deleted or its hello was used
    /// before; otherwise recorded as connected there (closing a connection it had elsewhere), and
    /// answered with what waits for it, in order.
    func attach(_ p: LiveAttach, in db: Database) throws -> LiveAttached {
        let appKey = try Validate.appKey(p.appKey)
        let registrationID = try Validate.registrationID(p.registrationID)
        guard let at = p.at else { throw CommandError.empty("at is missing") }
        let proof = try Validate.required(p.proof, "proof", maxBytes: 128)
        guard try !Tombstones.contains(db, registrationID: registrationID) else { throw Tombstones.refusal }
        let now = clock()
        guard try db.run("INSERT INTO hellos (proof, ts) VALUES (?, ?) ON CONFLICT DO NOTHING", proof, Double(p.helloTS ?? Int64(now))) > 0 else {
            throw CommandError.invalid("this hello was used before")
        }
        if let earlier = try presence.record(db, registrationID: registrationID)?.at, earlier != at {
            send(LivePush(closes: [LivePush.Close(registrationID: registrationID, at: earlier, code: 4001,
                                                  reason: "replaced by a newer connection")]), toHost: earlier.host)
        }
        try presence.attach(db, registrationID: registrationID, appKey: appKey, at: at, now: now)
        let (pending, more) = try mailbox.live(db, registrationID: registrationID, page: nil, now: now)
        return LiveAttached(pending: pending, more: more)
    }

    /// The next part of a long backlog, for the connection the device has now (nothing for an
    /// older one).
    func more(_ p: LiveMore, in db: Database) throws -> LiveAttached {
        let registrationID = try Validate.registrationID(p.registrationID)
        guard let at = p.at, try presence.record(db, registrationID: registrationID)?.at == at else { return LiveAttached(pending: []) }
        let (pending, more) = try mailbox.live(db, registrationID: registrationID, page: nil, now: clock(), after: p.after ?? "")
        return LiveAttached(pending: pending, more: more)
    }

    func detach(_ p: LiveDetach, in db: Database) throws -> Empty {
        let registrationID = try Validate.registrationID(p.registrationID)
        guard let at = p.at else { throw CommandError.empty("at is missing") }
        _ = try presence.detach(db, registrationID: registrationID, at: at, now: clock())
        return Empty()
    }

    func acknowledge(_ p: LiveAck, in db: Database) throws -> LiveAcked {
        let ids = p.registrationIDs ?? []
        let msgIDs = Array((p.msgIDs ?? []).prefix(1000))
        guard ids.count <= Self.maxDevicesPerDelivery else { throw CommandError.invalid("at most \(Self.maxDevicesPerDelivery) registration_ids") }
        var first: [String: [String]] = [:]
        for id in ids {
            let registrationID = try Validate.registrationID(id)
            let acknowledged = try mailbox.acknowledge(db, registrationID: registrationID, msgIDs: msgIDs)
            if !acknowledged.isEmpty { first[registrationID] = acknowledged }
        }
        return LiveAcked(first: first)
    }

    /// Another shard's messages for connections this process holds.
    func pass(_ p: LivePush) throws -> Empty {
        guard !p.isEmpty, let host = (p.sends.first?.at ?? p.closes.first?.at)?.host else { return Empty() }
        send(p, toHost: host)
        return Empty()
    }

    func reset(_ p: LiveReset, in db: Database) throws -> Empty {
        guard let host = p.host, let boot = p.boot else { throw CommandError.empty("host and boot are required") }
        try presence.reset(db, host: host, boot: boot, now: clock())
        return Empty()
    }

    // MARK: pages and status

    /// The device's app shows `page` (or stopped showing it): an in-app message waiting for that
    /// page is sent now, once.
    func page(_ p: PageReport, entering: Bool, in db: Database) throws -> Empty {
        let appKey = try Validate.appKey(p.appKey)
        let registrationID = try Validate.registrationID(p.registrationID)
        let page = try Validate.page(p.page)
        let record = try presence.record(db, registrationID: registrationID)
        guard entering else {
            if record?.page == page { try presence.setPage(db, registrationID: registrationID, appKey: appKey, page: nil) }
            return Empty()
        }
        try presence.setPage(db, registrationID: registrationID, appKey: appKey, page: page)
        guard let at = record?.at else { return Empty() }
        let entries = try mailbox.live(db, registrationID: registrationID, page: page, now: clock(), inAppOnly: true).entries
        if !entries.isEmpty { send(LivePush(sends: [LivePush.Send(registrationID: registrationID, at: at, entries: entries)]), toHost: at.host) }
        return Empty()
    }

    func status(_ p: DevicesStatusQuery, in db: Database) throws -> DevicesStatus {
        let appKey = try Validate.appKey(p.appKey)
        let ids = p.registrationIDs ?? []
        guard ids.count <= 1000 else { throw CommandError.invalid("at most 1000 registration_ids") }
        let now = clock()
        var devices: [String: DeviceOnline] = [:]
        for id in ids {
            let registrationID = try Validate.registrationID(id)
            guard let record = try presence.record(db, registrationID: registrationID), record.appKey == appKey else {
                devices[registrationID] = DeviceOnline(online: false, lastOnlineTime: nil)
                continue
            }
            let last = record.at != nil ? now : record.lastOnline
            devices[registrationID] = DeviceOnline(online: record.at != nil, lastOnlineTime: last.map { RFC3339.string(seconds: $0) })
        }
        return DevicesStatus(devices: devices)
    }

    // MARK: events and timed work

    public var subscriptions: [Topic] { [.deviceDeleted] }

    /// A deleted device's connection is closed and its messages and presence forgotten.
    public func apply(_ event: BusEvent, in db: Database) throws {
        guard Topic(rawValue: event.topic) == .deviceDeleted else { return }
        let registrationID = try event.decode(DeviceDeletedEvent.self).body.registrationID
        if let at = try presence.record(db, registrationID: registrationID)?.at {
            send(LivePush(closes: [LivePush.Close(registrationID: registrationID, at: at, code: 4410, reason: "device deleted")]), toHost: at.host)
        }
        try mailbox.forget(db, registrationID: registrationID)
        try presence.forget(db, registrationID: registrationID)
    }

    public func nextTick() -> Date? { Date(timeIntervalSince1970: nextPrune) }

    public func tick(now: Date, in db: Database) throws {
        let seconds = now.timeIntervalSince1970
        let pruned = try mailbox.prune(db, now: seconds, limit: Self.pruneChunk)
        try db.run("DELETE FROM hellos WHERE ts < ?", seconds - 2 * Double(ProofLedger.window))
        nextPrune = seconds + (pruned == Self.pruneChunk ? 0 : Self.pruneInterval)
    }

    /// Hands `push` to its connections' process once the transaction that made it commits.
    private func send(_ push: LivePush, toHost host: Int) {
        storage.store.afterCommit { [outlet] in outlet.push(push, toHost: host) }
    }
}
