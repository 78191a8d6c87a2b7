/// An event as it travels on the bus, frame 2 of `[topic, JSON, proof]`: who published it, its
/// per-publisher sequence number (gapless, so a subscriber can tell what it missed), the epoch of
/// the publisher's history (made with its database: a new epoch means the numbering started over),
/// when, and the fact. Frame 3 is the publisher's signature over topic and JSON (DESIGN.md terms:
/// `v1 service:<publisher> <hex HMAC-SHA256(service credential, topic + "\n" + JSON)>`).
public struct Event<Body: Codable & Sendable>: Codable, Sendable {
    public var publisher: String
    public var sequence: Int64
    /// Nil only in events published before epochs existed.
    public var epoch: String?
    public var time: String
    public var body: Body

    public init(publisher: String, sequence: Int64, epoch: String? = nil, time: String, body: Body) {
        self.publisher = publisher
        self.sequence = sequence
        self.epoch = epoch
        self.time = time
        self.body = body
    }

    enum CodingKeys: String, CodingKey { case publisher, sequence = "seq", epoch, time }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        publisher = try c.decode(String.self, forKey: .publisher)
        sequence = try c.decode(Int64.self, forKey: .sequence)
        epoch = try c.decodeIfPresent(String.self, forKey: .epoch)
        time = try c.decode(String.self, forKey: .time)
        body = try Body(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(publisher, forKey: .publisher)
        try c.encode(sequence, forKey: .sequence)
        try c.encodeIfPresent(epoch, forKey: .epoch)
        try c.encode(time, forKey: .time)
    }
}

extension Event: Equatable where Body: Equatable {}

/// The event topics, frame 1 of an event.
public enum Topic: String, CaseIterable, Codable, Sendable {
    case deviceRegistered = "device.registered"
    case deviceDeleted = "device.deleted"
    case deviceUpdated = "device.updated"
    case tagsChanged = "tags.changed"
    case aliasChanged = "alias.changed"
    case badgeChanged = "badge.changed"
    case localFired = "local.fired"
    case pushDelivered = "push.delivered"

    /// The service that publishes the topic, so a subscriber asks only it for what it missed.
    public var publisher: Service {
        switch self {
        case .deviceRegistered, .deviceDeleted, .deviceUpdated: .registration
        case .tagsChanged, .aliasChanged: .tagging
        case .badgeChanged: .badge
        case .localFired: .scheduler
        case .pushDelivered: .push
        }
    }
}

/// A fact a service publishes, tied to its topic.
public protocol EventBody: Codable, Sendable, Equatable {
    static var topic: Topic { get }
}

/// `device.registered`: a registration ID was issued for the first time.
public struct DeviceRegisteredEvent: EventBody {
    public static let topic = Topic.deviceRegistered
    public var appKey: String
    public var registrationID: String
    public var platform: String
    public init(appKey: String, registrationID: String, platform: String) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.platform = platform
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", platform }
}

/// `device.deleted`: every service forgets this device.
public struct DeviceDeletedEvent: EventBody {
    public static let topic = Topic.deviceDeleted
    public var appKey: String
    public var registrationID: String
    public init(appKey: String, registrationID: String) {
        self.appKey = appKey
        self.registrationID = registrationID
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id" }
}

/// `device.updated`: a device's language or time zone changed; only the changed fields are present.
/// The scheduler follows it to keep each device's time zone for calendar triggers.
public struct DeviceUpdatedEvent: EventBody {
    public static let topic = Topic.deviceUpdated
    public var appKey: String
    public var registrationID: String
    public var language: String?
    public var timezone: String?
    public init(appKey: String, registrationID: String, language: String? = nil, timezone: String? = nil) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.language = language
        self.timezone = timezone
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", language, timezone
    }
}

/// `tags.changed`: a device's tags changed; `added` and `removed` are the difference, so a subscriber
/// can keep its own index (`tags.clean` removes them all).
public struct TagsChangedEvent: EventBody {
    public static let topic = Topic.tagsChanged
    public var appKey: String
    public var registrationID: String
    public var added: [String]
    public var removed: [String]
    public init(appKey: String, registrationID: String, added: [String], removed: [String]) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.added = added
        self.removed = removed
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", added, removed }
}

/// `alias.changed`: a device's alias was set or deleted (`alias` absent); `previous` is the alias it replaced.
public struct AliasChangedEvent: EventBody {
    public static let topic = Topic.aliasChanged
    public var appKey: String
    public var registrationID: String
    public var alias: String?
    public var previous: String?
    public init(appKey: String, registrationID: String, alias: String?, previous: String?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.alias = alias
        self.previous = previous
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", alias, previous }
}

/// `badge.changed`: a device's stored badge has a new value.
public struct BadgeChangedEvent: EventBody {
    public static let topic = Topic.badgeChanged
    public var appKey: String
    public var registrationID: String
    public var value: Int
    public init(appKey: String, registrationID: String, value: Int) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.value = value
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", value }
}

/// `local.fired`: a local notification came due and moved to the delivered list; a repeating one
/// carries its `next_fire_at`.
public struct LocalFiredEvent: EventBody {
    public static let topic = Topic.localFired
    public var appKey: String
    public var registrationID: String
    public var identifier: String
    public var content: LocalContent
    public var firedAt: String
    public var nextFireAt: String?
    public init(appKey: String, registrationID: String, identifier: String, content: LocalContent,
                firedAt: String, nextFireAt: String? = nil) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.identifier = identifier
        self.content = content
        self.firedAt = firedAt
        self.nextFireAt = nextFireAt
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", identifier, content
        case firedAt = "fired_at", nextFireAt = "next_fire_at"
    }
}

/// `push.delivered`: APNs' answers for a message since the last such event: how many were sent,
/// and how many failed for good by reason. Analytics adds them to the message's statistics.
public struct PushDeliveredEvent: EventBody {
    public static let topic = Topic.pushDelivered
    public var appKey: String
    public var msgID: String
    public var sent: Int
    public var failed: [String: Int]
    public init(appKey: String, msgID: String, sent: Int, failed: [String: Int]) {
        self.appKey = appKey
        self.msgID = msgID
        self.sent = sent
        self.failed = failed
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", msgID = "msg_id", sent, failed }
}
