import Foundation
import Runtime
import Schema
import SQLite

/// The `tagging` service: tags, aliases, channel subscriptions and audience queries.
/// Rules and codes follow the MTPush "Tags and Aliases API" and reference/error-codes.md;
/// channels follow TikPush. Works on its storage inside the worker's transactions.
public final class TaggingHandler: RequestHandler {
    public let service = Service.tagging
    public let storage: ServiceStorage
    /// How many devices one alias may be bound to (JPush: 10).
    public let aliasMaxDevices: Int
    let devices = DeviceIndex()
    let tags: TagStore
    let channels = ChannelStore()
    /// More than 10 tag/alias sets in 10 s from one device is 6011.
    var setLimiter = RateLimiter(limit: 10, window: 10)
    /// The earliest channel expiry, so the worker wakes to purge it; recomputed after channel writes.
    var nextExpiry: Double?
    let clock: @Sendable () -> Double

    /// Opens (creating and migrating) the database at `path`. `clock` gives Unix seconds; tests move it.
    public init(path: String, publisher: String = "tagging", aliasMaxDevices: Int = 10,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        storage = try ServiceStorage(path: path, migrations: TaggingSchema.migrations, publisher: publisher)
        tags = TagStore(store: storage.store)
        self.aliasMaxDevices = aliasMaxDevices
        self.clock = clock
        nextExpiry = try storage.store.read { db in try channels.nextExpiry(db) }
    }

    var outbox: Outbox { storage.outbox }

    public func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        switch command {
        case .tagsAdd: try changeTags(request.decode(TagsChange.self), .add, in: db)
        case .tagsSet: try changeTags(request.decode(TagsChange.self), .set, in: db)
        case .tagsDelete: try changeTags(request.decode(TagsChange.self), .delete, in: db)
        case .tagsClean: try cleanTags(request.decode(DeviceRef.self), in: db)
        case .tagsGet: try getTags(request.decode(DeviceRef.self), in: db)
        case .tagsValid: try checkTag(request.decode(TagCheck.self), in: db)
        case .aliasSet: try setAlias(request.decode(AliasSet.self), in: db)
        case .aliasDelete: try deleteAlias(request.decode(DeviceRef.self), in: db)
        case .aliasGet: try getAlias(request.decode(DeviceRef.self), in: db)
        case .channelSubscribe: try subscribe(request.decode(ChannelSubscribe.self), in: db)
        case .channelUnsubscribe: try unsubscribe(request.decode(ChannelRef.self), in: db)
        case .channelStatus: try channelStatus(request.decode(ChannelRef.self), in: db)
        case .channelReset: try resetChannels(request.decode(DeviceRef.self), in: db)
        case .channelSync: try syncChannels(request.decode(ChannelSync.self), in: db)
        case .audienceResolve: try resolve(request.decode(AudienceResolve.self), in: db)
        case .tagsList: try listTags(request.decode(AppRef.self), in: db)
        case .tagsCount: try countTags(request.decode(TagsCount.self), in: db)
        case .aliasLookup: try lookupAlias(request.decode(AliasLookup.self), in: db)
        default: throw CommandError.invalid("\(command.name) is not a tagging command")
        }
    }

    // MARK: bus events and timed work

    public var subscriptions: [Topic] { [.deviceDeleted] }

    /// A deleted device loses its tags, alias and subscriptions here too.
    public func apply(_ event: BusEvent, in db: Database) throws {
        let deleted = try event.decode(DeviceDeletedEvent.self).body
        guard let device = try devices.find(db, registrationID: deleted.registrationID) else { return }
        _ = try tags.unbind(db, device: device.id, appKey: device.appKey, names: device.tags)
        try channels.removeAll(db, device: device.id)
        try devices.delete(db, device: device.id)
    }

    public func nextTick() -> Date? { nextExpiry.map { Date(timeIntervalSince1970: $0) } }

    /// Purges the subscriptions that expired.
    public func tick(now: Date, in db: Database) throws {
        try channels.purgeExpired(db, now: now.timeIntervalSince1970)
        nextExpiry = try channels.nextExpiry(db)
    }

    // MARK: shared checks

    /// The app key and registration ID of a device command, validated.
    func deviceKeys(_ appKey: String?, _ registrationID: String?) throws(CommandError) -> (app: String, id: String) {
        (try Validate.appKey(appKey), try Validate.registrationID(registrationID))
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
