import Foundation
import Runtime
import Schema
import SQLite

/// The `tagging` service: tags, aliases, channel subscriptions and audience queries.
/// Rules and codes follow the MTPush "Tags and Aliases API" and reference/error-codes.md;
/// channels follow TikPush. Owns its store; the worker loop group-commits its calls.
public final class TaggingHandler: RequestHandler {
    public let store: Store
    public let outbox: Outbox
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
        store = try Store(path: path, migrations: TaggingSchema.migrations)
        outbox = try Outbox(store: store, publisher: publisher)
        tags = TagStore(store: store)
        self.aliasMaxDevices = aliasMaxDevices
        self.clock = clock
        nextExpiry = try store.read { db in try channels.nextExpiry(db) }
    }

    public func handle(_ request: Request) throws -> any Encodable {
        guard let command = Command(rawValue: request.command), command.service == .tagging else {
            throw CommandError.invalid("unknown command \(request.command.prefix(64)) for tagging")
        }
        switch command {
        case .tagsAdd: return try changeTags(request.decode(TagsChange.self), .add)
        case .tagsSet: return try changeTags(request.decode(TagsChange.self), .set)
        case .tagsDelete: return try changeTags(request.decode(TagsChange.self), .delete)
        case .tagsClean: return try cleanTags(request.decode(DeviceRef.self))
        case .tagsGet: return try getTags(request.decode(DeviceRef.self))
        case .tagsValid: return try checkTag(request.decode(TagCheck.self))
        case .aliasSet: return try setAlias(request.decode(AliasSet.self))
        case .aliasDelete: return try deleteAlias(request.decode(DeviceRef.self))
        case .aliasGet: return try getAlias(request.decode(DeviceRef.self))
        case .channelSubscribe: return try subscribe(request.decode(ChannelSubscribe.self))
        case .channelUnsubscribe: return try unsubscribe(request.decode(ChannelRef.self))
        case .channelStatus: return try channelStatus(request.decode(ChannelRef.self))
        case .channelReset: return try resetChannels(request.decode(DeviceRef.self))
        case .channelSync: return try syncChannels(request.decode(ChannelSync.self))
        case .audienceResolve: return try resolve(request.decode(AudienceResolve.self))
        case .tagsList: return try listTags(request.decode(AppRef.self))
        case .tagsCount: return try countTags(request.decode(TagsCount.self))
        case .aliasLookup: return try lookupAlias(request.decode(AliasLookup.self))
        default: throw CommandError.invalid("unknown command \(command.name) for tagging")
        }
    }

    // MARK: bus events and timed work

    public var subscriptions: [Topic] { [.deviceDeleted] }

    /// A deleted device loses its tags, alias and subscriptions here too.
    public func apply(_ event: BusEvent) throws {
        let deleted = try event.decode(DeviceDeletedEvent.self).body
        try store.write { db in
            guard let device = try devices.find(db, registrationID: deleted.registrationID) else { return }
            _ = try tags.unbind(db, device: device.id, appKey: device.appKey, names: device.tags)
            try channels.removeAll(db, device: device.id)
            try devices.delete(db, device: device.id)
        }
    }

    public func nextTick() -> Date? { nextExpiry.map { Date(timeIntervalSince1970: $0) } }

    /// Purges the subscriptions that expired.
    public func tick(now: Date) throws {
        try store.write { db in
            try channels.purgeExpired(db, now: now.timeIntervalSince1970)
            nextExpiry = try channels.nextExpiry(db)
        }
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
