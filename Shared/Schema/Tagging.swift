// Payloads and replies of the `tagging` service (reference/commands.md).

/// `tags.add`, `tags.set`, `tags.delete`: add to, replace or remove from the device's tags.
public struct TagsChange: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var tags: [String]?
    public init(appKey: String?, registrationID: String?, tags: [String]?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.tags = tags
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", tags }
}

/// The tags of a device or an app; `tags.clean` answers `tags: null`, so null is always written out.
public struct TagsReply: Codable, Equatable, Sendable {
    public var tags: [String]?
    public init(tags: [String]?) { self.tags = tags }
    enum CodingKeys: String, CodingKey { case tags }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tags, forKey: .tags)
    }
}

/// `tags.valid`: is this one tag bound to the device?
public struct TagCheck: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var tag: String?
    public init(appKey: String?, registrationID: String?, tag: String?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.tag = tag
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", tag }
}

/// The answer to `tags.valid`.
public struct TagBinding: Codable, Equatable, Sendable {
    public var tag: String
    public var isBind: Bool
    public init(tag: String, isBind: Bool) {
        self.tag = tag
        self.isBind = isBind
    }
    enum CodingKeys: String, CodingKey { case tag, isBind = "is_bind" }
}

/// `alias.set`: bind the device to one alias, replacing the previous one.
public struct AliasSet: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var alias: String?
    public init(appKey: String?, registrationID: String?, alias: String?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.alias = alias
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", alias }
}

/// The device's alias after `alias.set`, `alias.delete` or `alias.get`; null (written out) when none.
public struct AliasReply: Codable, Equatable, Sendable {
    public var alias: String?
    public init(alias: String?) { self.alias = alias }
    enum CodingKeys: String, CodingKey { case alias }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(alias, forKey: .alias)
    }
}

/// `channel.subscribe`: subscribe the device to a channel, until `expires_at` (RFC 3339) if given.
public struct ChannelSubscribe: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var channel: String?
    public var expiresAt: String?
    public var backgroundPush: Bool?
    public init(appKey: String?, registrationID: String?, channel: String?, expiresAt: String? = nil,
                backgroundPush: Bool? = nil) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.channel = channel
        self.expiresAt = expiresAt
        self.backgroundPush = backgroundPush
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", channel
        case expiresAt = "expires_at", backgroundPush = "background_push"
    }
}

/// `channel.unsubscribe` and `channel.status`: one device and one channel.
public struct ChannelRef: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var channel: String?
    public init(appKey: String?, registrationID: String?, channel: String?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.channel = channel
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", channel }
}

/// The answer to `channel.status`: whether an unexpired subscription exists.
public struct ChannelStatus: Codable, Equatable, Sendable {
    public var subscribed: Bool
    public init(subscribed: Bool) { self.subscribed = subscribed }
}

/// One channel subscription, as `channel.sync` sends and returns it.
public struct ChannelSubscription: Codable, Equatable, Sendable {
    public var channel: String
    public var expiresAt: String?
    public var backgroundPush: Bool?
    public init(channel: String, expiresAt: String? = nil, backgroundPush: Bool? = nil) {
        self.channel = channel
        self.expiresAt = expiresAt
        self.backgroundPush = backgroundPush
    }
    enum CodingKeys: String, CodingKey { case channel, expiresAt = "expires_at", backgroundPush = "background_push" }
}

/// `channel.sync`: the device's full offline list replaces what the server holds.
public struct ChannelSync: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var subscriptions: [ChannelSubscription]?
    public init(appKey: String?, registrationID: String?, subscriptions: [ChannelSubscription]?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.subscriptions = subscriptions
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", subscriptions
    }
}

/// The subscriptions the server holds after `channel.sync`.
public struct ChannelSubscriptions: Codable, Equatable, Sendable {
    public var subscriptions: [ChannelSubscription]
    public init(subscriptions: [ChannelSubscription]) { self.subscriptions = subscriptions }
}

/// `audience.resolve`: the devices matching an audience. Values within a kind combine with OR
/// (`tag_and` with AND, `tag_not` excludes); kinds combine with AND. Every kind is an array on the wire.
public struct AudienceResolve: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationIDs: [String]?
    public var aliases: [String]?
    public var tags: [String]?
    public var tagAnd: [String]?
    public var tagNot: [String]?
    /// Channel subscriptions (TikPush), matched like tags (OR); expired ones never match.
    public var channels: [String]?
    /// Every device of the app (a push `to: "all"`); other kinds given with it narrow it as usual.
    public var all: Bool?
    public var cursor: String?
    public var limit: Int?
    public init(appKey: String?, registrationIDs: [String]? = nil, aliases: [String]? = nil, tags: [String]? = nil,
                tagAnd: [String]? = nil, tagNot: [String]? = nil, channels: [String]? = nil, all: Bool? = nil, cursor: String? = nil,
                limit: Int? = nil) {
        self.all = all
        self.appKey = appKey
        self.registrationIDs = registrationIDs
        self.aliases = aliases
        self.tags = tags
        self.tagAnd = tagAnd
        self.tagNot = tagNot
        self.channels = channels
        self.cursor = cursor
        self.limit = limit
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationIDs = "registration_id", aliases = "alias", tags = "tag"
        case tagAnd = "tag_and", tagNot = "tag_not", channels = "channel", all, cursor, limit
    }

    /// Reads every kind as the catalog gives it, an array, except that `registration_id` may also be
    /// one string, read as a list of one (a caller naming one device often sends it so): the one
    /// place the schema takes a string for a list.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appKey = try c.decodeIfPresent(String.self, forKey: .appKey)
        if let one = try? c.decodeIfPresent(String.self, forKey: .registrationIDs) {
            registrationIDs = [one]
        } else {
            registrationIDs = try c.decodeIfPresent([String].self, forKey: .registrationIDs)
        }
        aliases = try c.decodeIfPresent([String].self, forKey: .aliases)
        tags = try c.decodeIfPresent([String].self, forKey: .tags)
        tagAnd = try c.decodeIfPresent([String].self, forKey: .tagAnd)
        tagNot = try c.decodeIfPresent([String].self, forKey: .tagNot)
        channels = try c.decodeIfPresent([String].self, forKey: .channels)
        all = try c.decodeIfPresent(Bool.self, forKey: .all)
        cursor = try c.decodeIfPresent(String.self, forKey: .cursor)
        limit = try c.decodeIfPresent(Int.self, forKey: .limit)
    }
}

/// One page of `audience.resolve`; `next_cursor` is null (written out) on the last page.
public struct AudiencePage: Codable, Equatable, Sendable {
    public var registrationIDs: [String]
    public var nextCursor: String?
    public var total: Int
    public init(registrationIDs: [String], nextCursor: String?, total: Int) {
        self.registrationIDs = registrationIDs
        self.nextCursor = nextCursor
        self.total = total
    }
    enum CodingKeys: String, CodingKey { case registrationIDs = "registration_ids", nextCursor = "next_cursor", total }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(registrationIDs, forKey: .registrationIDs)
        try c.encode(nextCursor, forKey: .nextCursor)
        try c.encode(total, forKey: .total)
    }
}

/// The payload of every command that names only an app: `tags.list`.
public struct AppRef: Codable, Equatable, Sendable {
    public var appKey: String?
    public init(appKey: String?) { self.appKey = appKey }
    enum CodingKeys: String, CodingKey { case appKey = "app_key" }
}

/// `tags.count`: how many devices of the app carry each tag.
public struct TagsCount: Codable, Equatable, Sendable {
    public var appKey: String?
    public var tags: [String]?
    public init(appKey: String?, tags: [String]?) {
        self.appKey = appKey
        self.tags = tags
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", tags }
}

/// The answer to `tags.count`: tag → number of devices.
public struct TagCounts: Codable, Equatable, Sendable {
    public var counts: [String: Int]
    public init(counts: [String: Int]) { self.counts = counts }
}

/// `alias.lookup`: the devices bound to an alias.
public struct AliasLookup: Codable, Equatable, Sendable {
    public var appKey: String?
    public var alias: String?
    public init(appKey: String?, alias: String?) {
        self.appKey = appKey
        self.alias = alias
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", alias }
}

/// The answer to `alias.lookup`.
public struct AliasDevices: Codable, Equatable, Sendable {
    public var registrationIDs: [String]
    public init(registrationIDs: [String]) { self.registrationIDs = registrationIDs }
    enum CodingKeys: String, CodingKey { case registrationIDs = "registration_ids" }
}
