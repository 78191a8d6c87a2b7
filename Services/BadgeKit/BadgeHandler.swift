import Bus
import Foundation
import SQLite
import Schema
import Worker

/// The `badge` service: the badge value the server keeps for each device, set by the device
/// (`setBadge:`) and raised or lowered by pushes (`badge.apply`, idempotent per `msg_id`).
/// Learns devices from `device.registered` and forgets them on `device.deleted`. Works on its
/// storage inside the worker's transactions.
public final class BadgeHandler: RequestHandler {
    public let service = Service.badge
    public let storage: ServiceStorage
    /// How long a push's `msg_id` is remembered after its last `badge.apply`, in seconds.
    public let retention: Double
    /// Most registration IDs one `badge.apply` may name.
    public static let maxDevicesPerApply = 1000
    /// Rows one retention pass deletes at most, so a large expired push never stalls the loop.
    static let pruneChunk = 5000
    /// Pause between retention passes once nothing is left to delete, in seconds.
    static let pruneInterval = 60.0

    private let badges = BadgeStore()
    private let clock: @Sendable () -> Double
    private var nextPrune: Double

    /// Opens (creating and migrating) the database at `path`. `retention` is in seconds;
    /// `clock` gives Unix seconds, and tests move it.
    public init(path: String, retention: Double = 86_400, publisher: String = "badge",
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        storage = try ServiceStorage(path: path, migrations: BadgeSchema.migrations, publisher: publisher)
        self.retention = retention
        self.clock = clock
        nextPrune = clock()
    }

    public func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        switch command {
        case .badgeSet: try set(request.decode(BadgeSet.self), in: db)
        case .badgeReset: try reset(request.decode(DeviceRef.self), in: db)
        case .badgeGet: try get(request.decode(DeviceRef.self), in: db)
        case .badgeValues: try values(request.decode(BadgeValuesQuery.self), in: db)
        case .badgeApply: try applyPush(request.decode(BadgeApply.self), in: db)
        default: throw notHandled(command)
        }
    }

    // MARK: commands

    /// `setBadge:`: 0...99999, anything else is refused and nothing is stored. A device not heard of
    /// yet is accepted and becomes known (the SDK sets its badge right after registering).
    func set(_ p: BadgeSet, in db: Database) throws -> BadgeValue {
        let (appKey, registrationID) = try validate(p.appKey, p.registrationID)
        guard let value = p.value else { throw CommandError.empty("value is missing") }
        guard BadgeChange.range.contains(value) else {
            throw CommandError.invalid("value must be in 0...99999, got \(value)")
        }
        return try keep(value, appKey: appKey, registrationID: registrationID, in: db)
    }

    /// `resetBadge`: the same as setting 0.
    func reset(_ p: DeviceRef, in db: Database) throws -> BadgeValue {
        let (appKey, registrationID) = try validate(p.appKey, p.registrationID)
        return try keep(0, appKey: appKey, registrationID: registrationID, in: db)
    }

    /// A device never set reads 0; a deleted one is unknown (6017).
    func get(_ p: DeviceRef, in db: Database) throws -> BadgeValue {
        let (appKey, registrationID) = try validate(p.appKey, p.registrationID)
        return BadgeValue(value: try known(db, appKey: appKey, registrationID: registrationID)?.badge ?? 0)
    }

    /// The app's view of its devices' badges (the console's device page); reads only.
    func values(_ p: BadgeValuesQuery, in db: Database) throws -> BadgeValues {
        let appKey = try Validate.appKey(p.appKey)
        guard let ids = p.registrationIDs, !ids.isEmpty, ids.count <= 1000 else {
            throw CommandError.invalid("registration_ids must name 1...1000 devices")
        }
        var values: [String: Int] = [:]
        var unknown: [String] = []
        for id in ids {
            if let device = try badges.device(db, registrationID: id), device.appKey == appKey {
                values[id] = device.badge
            } else {
                unknown.append(id)
            }
        }
        return BadgeValues(values: values, unknown: unknown.isEmpty ? nil : unknown)
    }

    /// One push's badge for up to 1000 devices of an app, each changed once per `msg_id`, however
    /// often the push is retried. IDs this service does not know for the app come back in `unknown`.
    func applyPush(_ p: BadgeApply, in db: Database) throws -> BadgeValues {
        let appKey = try Validate.appKey(p.appKey)
        let registrationIDs = try uniqueRegistrationIDs(p.registrationIDs)
        let change = try BadgeChange(p.badge)
        let msgID = try Validate.required(p.msgID, "msg_id", maxBytes: 128)
        let message = try self.message(db, appKey: appKey, msgID: msgID, change: change, now: clock())
        var values: [String: Int] = [:]
        var unknown: [String] = []
        for registrationID in registrationIDs {
            guard let device = try badges.device(db, registrationID: registrationID, message: message),
                  device.appKey == appKey else {
                unknown.append(registrationID)
                continue
            }
            if let earlier = device.applied {
                values[registrationID] = earlier
                continue
            }
            let value = change.applied(to: device.badge)
            try save(db, device, value, appKey: appKey, registrationID: registrationID)
            try badges.recordApplied(db, message: message, registrationID: registrationID, value: value)
            values[registrationID] = value
        }
        return BadgeValues(values: values, unknown: unknown)
    }

    // MARK: events

    public var subscriptions: [Topic] { [.deviceRegistered, .deviceDeleted] }

    public func apply(_ event: BusEvent, in db: Database) throws {
        switch Topic(rawValue: event.topic) {
        case .deviceRegistered:
            let registered = try event.decode(DeviceRegisteredEvent.self).body
            guard try !Tombstones.contains(db, registrationID: registered.registrationID) else { return }
            try badges.learn(db, registrationID: registered.registrationID, appKey: registered.appKey)
        case .deviceDeleted:
            let deleted = try event.decode(DeviceDeletedEvent.self).body
            let appKey = try badges.device(db, registrationID: deleted.registrationID)?.appKey ?? deleted.appKey
            try badges.forget(db, registrationID: deleted.registrationID, appKey: appKey, now: clock())
        default:
            break
        }
    }

    // MARK: retention

    public func nextTick() -> Date? { Date(timeIntervalSince1970: nextPrune) }

    /// Forgets pushes and deleted-device marks older than the retention window, a chunk at a time.
    public func tick(now: Date, in db: Database) throws {
        let seconds = now.timeIntervalSince1970
        let removed = try badges.prune(db, before: seconds - retention, limit: Self.pruneChunk)
        nextPrune = removed >= Self.pruneChunk ? seconds : seconds + Self.pruneInterval
    }

    // MARK: helpers

    private func validate(_ appKey: String?, _ registrationID: String?) throws -> (String, String) {
        (try Validate.appKey(appKey), try Validate.registrationID(registrationID))
    }

    /// The device if this service knows it for `appKey`; 1008 when it belongs to another app or was
    /// deleted (its tombstone is kept for good, whoever asks), 6017 when it was forgotten before
    /// tombstones were kept.
    private func known(_ db: Database, appKey: String, registrationID: String) throws -> BadgeStore.Device? {
        if let device = try badges.device(db, registrationID: registrationID) {
            guard device.appKey == appKey else {
                throw CommandError(.appKeyInvalid, "registration_id belongs to another app_key")
            }
            return device
        }
        guard try !Tombstones.contains(db, registrationID: registrationID) else { throw Tombstones.refusal }
        guard try !badges.isForgotten(db, registrationID: registrationID) else {
            throw CommandError.invalid("unknown registration_id: the device was deleted")
        }
        return nil
    }

    /// Sets a device's badge from the device itself; a device not known yet is learned with it.
    private func keep(_ value: Int, appKey: String, registrationID: String, in db: Database) throws -> BadgeValue {
        if let device = try known(db, appKey: appKey, registrationID: registrationID) {
            try save(db, device, value, appKey: appKey, registrationID: registrationID)
        } else {
            try badges.learn(db, registrationID: registrationID, appKey: appKey, badge: value)
            if value != 0 { try publish(db, appKey: appKey, registrationID: registrationID, value: value) }
        }
        return BadgeValue(value: value)
    }

    /// Stores `value` for a known device and announces it, when it differs from what is stored.
    private func save(_ db: Database, _ device: BadgeStore.Device, _ value: Int, appKey: String,
                      registrationID: String) throws {
        guard value != device.badge else { return }
        try badges.setBadge(db, registrationID: registrationID, to: value)
        try publish(db, appKey: appKey, registrationID: registrationID, value: value)
    }

    private func publish(_ db: Database, appKey: String, registrationID: String, value: Int) throws {
        try storage.outbox.append(BadgeChangedEvent(appKey: appKey, registrationID: registrationID, value: value), in: db)
    }

    /// The push's row, created on first use; a `msg_id` already used with another badge is refused.
    private func message(_ db: Database, appKey: String, msgID: String, change: BadgeChange, now: Double) throws -> Int64 {
        guard let existing = try badges.message(db, appKey: appKey, msgID: msgID) else {
            return try badges.insertMessage(db, appKey: appKey, msgID: msgID, badge: change.text, now: now)
        }
        guard existing.badge == change.text else {
            throw CommandError.invalid("msg_id \(msgID.prefix(64)) was applied with badge \(existing.badge), not \(change.text)")
        }
        try badges.touchMessage(db, id: existing.id, now: now)
        return existing.id
    }

    /// The IDs in order without repeats: 1...1000 of them (6001 when none), each well-formed (6017).
    private func uniqueRegistrationIDs(_ ids: [String]?) throws -> [String] {
        guard let ids, !ids.isEmpty else { throw CommandError.empty("registration_ids is missing or empty") }
        guard ids.count <= Self.maxDevicesPerApply else {
            throw CommandError.invalid("registration_ids names \(ids.count) devices, at most \(Self.maxDevicesPerApply)")
        }
        var seen = Set<String>()
        var unique: [String] = []
        for (index, id) in ids.enumerated() {
            do {
                let valid = try Validate.registrationID(id)
                if seen.insert(valid).inserted { unique.append(valid) }
            } catch {
                throw CommandError(error.code, "registration_ids[\(index)]: \(error.message)")
            }
        }
        return unique
    }
}
