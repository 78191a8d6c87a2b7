import Bus
import Events
import Foundation
import Runtime
import SQLite
import Schema
import Worker

/// The `tagging` service: tags, aliases, channel subscriptions and audience queries.
/// Rules and codes follow the MTPush "Tags and Aliases API" and reference/error-codes.md;
/// channels follow TikPush. Works on its storage inside the worker's transactions.
public final class TaggingHandler: RequestHandler {
    public let service = Service.tagging
    public let storage: ServiceStorage
    /// How many devices one alias may be bound to (JPush: 10).
    public let aliasMaxDevices: Int
    /// Device entries kept in memory unless `--device-cache` says otherwise (`DeviceIndex`).
    /// Measured: 200,000 entries took 75 MB (the worker's resident size after the 1,000,000-call
    /// file, against the build without them).
    public static let defaultDeviceCacheEntries = 250_000
    let devices: DeviceIndex
    let tags: TagStore
    /// Which devices carry each tag, in a file of its own beside the database.
    let audienceIndex: AudienceIndex
    let channels = ChannelStore()
    /// More than 10 tag/alias sets in 10 s from one device is 6011.
    let setLimiter: RequestRateLimiter
    /// Whether the request being handled was signed by its app's server rather than the device.
    var signedByApp = false
    /// The earliest channel expiry, so the worker wakes to purge it; recomputed after channel writes.
    var nextExpiry: Double?
    let clock: @Sendable () -> Double
    /// The shard this handler serves: it learns only the registered devices that hash to it, so an
    /// audience of every device counts each once across shards.
    let shard: ShardLayout

    /// Opens (creating and migrating) the database at `path`. `clock` gives Unix seconds; tests move it.
    public init(path: String, publisher: String = "tagging", aliasMaxDevices: Int = 10,
                deviceCacheEntries: Int = TaggingHandler.defaultDeviceCacheEntries, shard: ShardLayout = ShardLayout(),
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        self.shard = shard
        storage = try ServiceStorage(path: path, migrations: TaggingSchema.migrations, publisher: publisher)
        audienceIndex = try AudienceIndex(store: storage.store)
        tags = TagStore(store: storage.store)
        devices = DeviceIndex(store: storage.store, cachedEntryLimit: deviceCacheEntries)
        setLimiter = RequestRateLimiter(limit: 10, window: 10, store: storage.store)
        self.aliasMaxDevices = aliasMaxDevices
        self.clock = clock
        nextExpiry = try storage.store.read { db in try channels.nextExpiry(db) }
    }

    var outbox: Outbox { storage.outbox }

    /// How long opening took to build the audience index again (after a crash, say); nil when the
    /// index was kept.
    public var audienceIndexBuildSeconds: Double? { audienceIndex.buildSeconds }

    /// Writes the audience entries still staged, then marks the audience index as matching the
    /// database, so the next start keeps it.
    public func close() throws {
        try storage.store.write { db in try tags.writeAudience(db) }
        try audienceIndex.close()
    }

    public func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        if case .app? = request.principal { signedByApp = true } else { signedByApp = false }
        return try dispatch(command, request, in: db)
    }

    private func dispatch(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
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
        default: throw notHandled(command)
        }
    }

    // MARK: tags

    enum TagChange { case add, set, delete }

    /// `tags.add` adds, `tags.set` replaces all, `tags.delete` removes. Checks in the public order:
    /// null → charset → length → count → total bytes → rate → device cap (6018).
    func changeTags(_ p: TagsChange, _ change: TagChange, in db: Database) throws -> TagsReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        let names = try TagRules.validateTags(p.tags)
        try countSet(keys.id)
        let device = try entry(db, keys)
        let held = device.tags
        let bound = Set(held)
        let toUnbind: [String], toBind: [String]
        switch change {
        case .add: (toUnbind, toBind) = ([], names.filter { !bound.contains($0) })
        case .set:
            let keep = Set(names)
            (toUnbind, toBind) = (held.filter { !keep.contains($0) }, names.filter { !bound.contains($0) })
        case .delete: (toUnbind, toBind) = (names.filter { bound.contains($0) }, [])
        }
        // Refused before anything is written, so a batch has nothing of this request to undo.
        let count = held.count + toBind.count - toUnbind.count
        guard count <= TagRules.maxTagsPerDevice else {
            throw CommandError(.deviceTagLimit, "the device would hold \(count) tags; at most \(TagRules.maxTagsPerDevice)")
        }
        let removed = try tags.unbind(db, device: device.id, appKey: keys.app, names: toUnbind)
        let added = try tags.bind(db, device: device.id, appKey: keys.app, names: toBind)
        if !added.isEmpty || !removed.isEmpty {
            try devices.setTags(db, device: device, to: bound.subtracting(removed).union(added))
            try announce(db, keys, added: added, removed: removed)
        }
        return TagsReply(tags: names)
    }

    func cleanTags(_ p: DeviceRef, in db: Database) throws -> TagsReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        try countSet(keys.id)
        if let device = try knownDevice(db, app: keys.app, id: keys.id) {
            let removed = try tags.unbindAll(db, device: device)
            try devices.setTags(db, device: device, to: [])
            try announce(db, keys, added: [], removed: removed)
        }
        return TagsReply(tags: nil)
    }

    func getTags(_ p: DeviceRef, in db: Database) throws -> TagsReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        return TagsReply(tags: try knownDevice(db, app: keys.app, id: keys.id)?.tags ?? [])
    }

    func checkTag(_ p: TagCheck, in db: Database) throws -> TagBinding {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        let tag = try TagRules.validateTag(p.tag)
        return TagBinding(tag: tag, isBind: try knownDevice(db, app: keys.app, id: keys.id)?.tags.contains(tag) ?? false)
    }

    /// Publishes `tags.changed` when anything changed.
    func announce(_ db: Database, _ keys: (app: String, id: String), added: [String], removed: [String]) throws {
        guard !added.isEmpty || !removed.isEmpty else { return }
        try outbox.append(TagsChangedEvent(appKey: keys.app, registrationID: keys.id, added: added, removed: removed), in: db)
    }
}
