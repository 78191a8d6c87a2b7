import Bus
import Foundation
import Runtime
import Schema
import SQLite
import Worker

/// What every device command shares (its keys, its entry, its rate of sets), what a deleted device
/// loses, and the purge of expired channel subscriptions.
extension TaggingHandler {
    public var subscriptions: [Topic] { [.deviceRegistered, .deviceDeleted] }

    /// A registered device joins the app's audience (`all`) on its shard; a deleted one loses its
    /// tags, alias and subscriptions here too.
    public func apply(_ event: BusEvent, in db: Database) throws {
        if event.topic == Topic.deviceRegistered.rawValue {
            let registered = try event.decode(DeviceRegisteredEvent.self).body
            guard ShardHash.shard(of: registered.registrationID, count: shard.count) == shard.index,
                  try devices.find(db, registrationID: registered.registrationID) == nil,
                  try !Tombstones.contains(db, registrationID: registered.registrationID) else { return }
            _ = try devices.entry(db, registrationID: registered.registrationID, appKey: registered.appKey)
            return
        }
        let deleted = try event.decode(DeviceDeletedEvent.self).body
        guard let device = try devices.find(db, registrationID: deleted.registrationID) else { return }
        _ = try tags.unbindAll(db, device: device)
        try channels.removeAll(db, device: device.id)
        try devices.delete(db, device: device)
    }

    public func nextTick() -> Date? { nextExpiry.map { Date(timeIntervalSince1970: $0) } }

    /// Purges the subscriptions that expired.
    public func tick(now: Date, in db: Database) throws {
        try channels.purgeExpired(db, now: now.timeIntervalSince1970)
        nextExpiry = try channels.nextExpiry(db)
    }

    /// The app key and registration ID of a device command, validated.
    func deviceKeys(_ appKey: String?, _ registrationID: String?) throws(CommandError) -> (app: String, id: String) {
        (try Validate.appKey(appKey), try Validate.registrationID(registrationID))
    }

    /// The device's entry for a change; only the device itself may make an unknown one known, its app's
    /// server may change only devices tagging has learnt are the app's (a made-up or another app's
    /// registration ID is refused, never claimed).
    func entry(_ db: Database, _ keys: (app: String, id: String)) throws -> DeviceIndex.Entry {
        try devices.entry(db, registrationID: keys.id, appKey: keys.app, mayCreate: !signedByApp)
    }

    /// A device that may have no entry yet (reads): nil when unknown, 1008 when another app's.
    func knownDevice(_ db: Database, app: String, id: String) throws -> DeviceIndex.Entry? {
        guard let found = try devices.find(db, registrationID: id) else { return nil }
        guard found.appKey == app else { throw CommandError(.appKeyInvalid, "registration_id belongs to another app_key") }
        return found
    }

    /// Counts one tag/alias set of the device against its rate limit (6011 when over).
    func countSet(_ registrationID: String) throws(CommandError) {
        guard setLimiter.allow(registrationID, now: clock()) else {
            throw CommandError(.tooFrequent, "more than 10 tag/alias sets in 10 s from this device, try later")
        }
    }
}
