// PushBus's internal commands of the sending path: the push service asking registration for the
// devices' tokens and reporting the dead ones, and handing notifications to an `apns` sender.
import JSON

/// `device.tokens` (internal): the APNs tokens of some devices of an app.
public struct DeviceTokensQuery: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationIDs: [String]?
    /// When set, each device's Live Activity token for this activity too; without
    /// `registration_ids`, the devices holding one (1000 at most, in registration ID order).
    public var liveActivityID: String?
    /// For the holders of an activity: only those after this registration ID (the next page).
    public var after: String?
    public init(appKey: String?, registrationIDs: [String]?, liveActivityID: String? = nil, after: String? = nil) {
        self.appKey = appKey
        self.registrationIDs = registrationIDs
        self.liveActivityID = liveActivityID
        self.after = after
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationIDs = "registration_ids", liveActivityID = "live_activity_id", after
    }
}

/// What a push needs to reach one device. A token registration disabled (after APNs said it is
/// dead) is absent.
public struct DeviceTokens: Codable, Equatable, Sendable {
    public var apnsToken: String?
    public var apnsProduction: Bool
    public var voipToken: String?
    public var liveActivityToken: String?
    /// The device's notification authorization (`device.update`), when it reported one: a push with
    /// `notification_reminder` goes to a `denied` device over the channel instead.
    public var authorization: String?
    public init(apnsToken: String?, apnsProduction: Bool, voipToken: String? = nil, liveActivityToken: String? = nil,
                authorization: String? = nil) {
        self.apnsToken = apnsToken
        self.apnsProduction = apnsProduction
        self.voipToken = voipToken
        self.liveActivityToken = liveActivityToken
        self.authorization = authorization
    }
    enum CodingKeys: String, CodingKey {
        case apnsToken = "apns_token", apnsProduction = "apns_production", voipToken = "voip_token"
        case liveActivityToken = "live_activity_token", authorization
    }
}

/// The answer to `device.tokens`: registration ID → tokens; IDs registration does not know for the
/// app are absent.
public struct DeviceTokensReply: Codable, Equatable, Sendable {
    public var devices: [String: DeviceTokens]
    public init(devices: [String: DeviceTokens]) { self.devices = devices }

    enum CodingKeys: String, CodingKey { case devices }

    /// Read as one tree, each device's few fields taken from its members, not field by field through
    /// the keyed decoder: in a broadcast that decoder, comparing key strings for every field of every
    /// device, was a fifth of push's CPU. A field of the wrong type is refused as decoding refuses it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard case .object(let tree) = try container.decode(JSONValue.self, forKey: .devices) else {
            throw DecodingError.typeMismatch([String: DeviceTokens].self, .init(codingPath: [CodingKeys.devices], debugDescription: "devices is not an object"))
        }
        var devices: [String: DeviceTokens] = [:]
        devices.reserveCapacity(tree.members.count)
        for member in tree.members where devices[member.key] == nil {
            devices[member.key] = try DeviceTokens(member.value, path: [CodingKeys.devices])
        }
        self.devices = devices
    }
}

extension DeviceTokens {
    /// One device's tokens from its tree.
    init(_ tree: JSONValue, path: [any CodingKey]) throws {
        let fields = try TreeFields(tree, as: DeviceTokens.self, path: path)
        self.init(apnsToken: try fields.string(CodingKeys.apnsToken), apnsProduction: try fields.bool(required: CodingKeys.apnsProduction),
                  voipToken: try fields.string(CodingKeys.voipToken), liveActivityToken: try fields.string(CodingKeys.liveActivityToken),
                  authorization: try fields.string(CodingKeys.authorization))
    }
}

/// `device.tokens_invalid` (internal): APNs answered that these tokens are dead (410 Unregistered
/// or 400 BadDeviceToken). Each is disabled unless the device registered a token again after `since`.
public struct DeviceTokensInvalid: Codable, Equatable, Sendable {
    public var appKey: String?
    public var tokens: [InvalidToken]?
    public init(appKey: String?, tokens: [InvalidToken]?) {
        self.appKey = appKey
        self.tokens = tokens
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", tokens }
}

public struct InvalidToken: Codable, Equatable, Sendable {
    public var registrationID: String
    public var token: String
    /// `apns`, `voip` or `live_activity`.
    public var kind: String
    /// Unix seconds since when APNs knows the token is dead (its 410 `timestamp`, else the answer's time).
    public var since: Double
    public init(registrationID: String, token: String, kind: String, since: Double) {
        self.registrationID = registrationID
        self.token = token
        self.kind = kind
        self.since = since
    }
    enum CodingKeys: String, CodingKey { case registrationID = "registration_id", token, kind, since }
}

/// How many tokens `device.tokens_invalid` disabled.
public struct TokensDisabled: Codable, Equatable, Sendable {
    public var disabled: Int
    public init(disabled: Int) { self.disabled = disabled }
}

/// `apns.send` (internal): notifications for one app, each with its final payload, for an `apns`
/// sender to deliver over HTTP/2. On the wire the fields most notifications of a batch share (a
/// broadcast's payload, topic, push type...) are written once, in `common`: an item gives only
/// what differs from it (its id, token and apns-id; a null where it has none and `common` has
/// one), and a field an item leaves out is `common`'s. Read back, every notification is whole.
public struct ApnsSend: Codable, Equatable, Sendable {
    /// The app the notifications are for: the sender shares APNs' streams fairly between apps by it.
    public var appKey: String?
    public var credentials: ApnsKey?
    public var notifications: [ApnsNotification]?
    public init(appKey: String? = nil, credentials: ApnsKey?, notifications: [ApnsNotification]?) {
        self.appKey = appKey
        self.credentials = credentials
        self.notifications = notifications
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", credentials, notifications, common }

    /// The notifications read from their tree (`TreeFields`), not key by key through the decoder,
    /// each field its item's, else `common`'s.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        appKey = try container.decodeIfPresent(String.self, forKey: .appKey)
        credentials = try container.decodeIfPresent(ApnsKey.self, forKey: .credentials)
        let common = try container.decodeIfPresent(JSONValue.self, forKey: .common)
            .flatMap { $0 == .null ? nil : try TreeFields($0, as: ApnsCommon.self, path: [CodingKeys.common]) }
        notifications = try treeItems(try container.decodeIfPresent(JSONValue.self, forKey: .notifications), as: ApnsNotification.self,
                                      path: [CodingKeys.notifications]) { item, path in
            let fields = try TreeFields(item, as: ApnsNotification.self, path: path, fallback: common)
            typealias Key = ApnsNotification.CodingKeys
            return ApnsNotification(id: try fields.string(required: Key.id), token: try fields.string(required: Key.token),
                                    production: try fields.bool(required: Key.production), topic: try fields.string(required: Key.topic),
                                    pushType: try fields.string(required: Key.pushType), priority: try fields.int(required: Key.priority),
                                    expiration: try fields.int(Key.expiration), collapseID: try fields.string(Key.collapseID),
                                    payload: try fields.string(required: Key.payload), apnsID: try fields.string(Key.apnsID))
        }
    }

    /// The compact form (`common`, then each item's differences), the same as `write(fields:)`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(appKey, forKey: .appKey)
        try container.encodeIfPresent(credentials, forKey: .credentials)
        guard let notifications else { return }
        let common = ApnsCommon(of: notifications)
        try container.encodeIfPresent(common, forKey: .common)
        try container.encode(notifications.map { ApnsNotification.Item($0, common: common) }, forKey: .notifications)
    }
}

/// What a batch's notifications share, written once: the first notification's fields but its
/// own (id, token, apns-id). None for a batch of one.
public struct ApnsCommon: Encodable, Equatable, Sendable {
    public var production: Bool
    public var topic: String
    public var pushType: String
    public var priority: Int
    public var expiration: Int?
    public var collapseID: String?
    public var payload: String
    typealias CodingKeys = ApnsNotification.CodingKeys

    init?(of notifications: [ApnsNotification]) {
        guard notifications.count > 1, let first = notifications.first else { return nil }
        production = first.production
        topic = first.topic
        pushType = first.pushType
        priority = first.priority
        expiration = first.expiration
        collapseID = first.collapseID
        payload = first.payload
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(production, forKey: .production)
        try container.encode(topic, forKey: .topic)
        try container.encode(pushType, forKey: .pushType)
        try container.encode(priority, forKey: .priority)
        try container.encodeIfPresent(expiration, forKey: .expiration)
        try container.encodeIfPresent(collapseID, forKey: .collapseID)
        try container.encode(payload, forKey: .payload)
    }
}

/// An app's provider key as a sender needs it.
public struct ApnsKey: Codable, Equatable, Sendable, Hashable {
    public var teamID: String
    public var keyID: String
    /// The .p8 key's PEM text.
    public var p8: String
    public init(teamID: String, keyID: String, p8: String) {
        self.teamID = teamID
        self.keyID = keyID
        self.p8 = p8
    }
    enum CodingKeys: String, CodingKey { case teamID = "team_id", keyID = "key_id", p8 }
}

/// One HTTP/2 request to APNs.
public struct ApnsNotification: Codable, Equatable, Sendable {
    /// The sender's handle for the result (the push service's delivery).
    public var id: String
    public var token: String
    /// Production APNs, else the sandbox.
    public var production: Bool
    /// `apns-topic`: the bundle id, `.voip` or `.push-type.liveactivity` added.
    public var topic: String
    /// `apns-push-type`: alert, background, voip, liveactivity.
    public var pushType: String
    public var priority: Int
    /// `apns-expiration`, Unix seconds; 0 = try once.
    public var expiration: Int?
    public var collapseID: String?
    /// The payload's final JSON text.
    public var payload: String
    /// `apns-id`: the same for every attempt at one (message, device), so a notification sent again
    /// is still one notification to APNs and in its answers; a new one per request when nil.
    public var apnsID: String?
    public init(id: String, token: String, production: Bool, topic: String, pushType: String, priority: Int,
                expiration: Int?, collapseID: String?, payload: String, apnsID: String? = nil) {
        self.id = id
        self.token = token
        self.production = production
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.apnsID = apnsID
    }
    enum CodingKeys: String, CodingKey {
        case id, token, production, topic, pushType = "push_type", priority, expiration, collapseID = "collapse_id", payload
        case apnsID = "apns_id"
    }
}

extension ApnsNotification {
    /// A notification as a batch's item: its own fields, and those it does not share with `common`
    /// (all of them when there is none); a null where it has no value and `common` has one.
    struct Item: Encodable {
        typealias CodingKeys = ApnsNotification.CodingKeys
        let notification: ApnsNotification
        let common: ApnsCommon?
        init(_ notification: ApnsNotification, common: ApnsCommon?) {
            self.notification = notification
            self.common = common
        }

        /// Each field to write, by the same rule for both writers: `differs` says whether it goes in.
        /// Strings are compared by their bytes: by `==`, two spellings of one text (canonically
        /// equivalent) are equal, and an item would take `common`'s bytes for its own.
        func differs(_ field: CodingKeys) -> Bool {
            guard let common else { return true }
            let n = notification
            func differ(_ a: String?, _ b: String?) -> Bool {
                guard let a, let b else { return (a == nil) != (b == nil) }
                return !a.hasSameBytes(as: b)
            }
            switch field {
            case .id, .token, .apnsID: return true
            case .production: return n.production != common.production
            case .topic: return differ(n.topic, common.topic)
            case .pushType: return differ(n.pushType, common.pushType)
            case .priority: return n.priority != common.priority
            case .expiration: return n.expiration != common.expiration
            case .collapseID: return differ(n.collapseID, common.collapseID)
            case .payload: return differ(n.payload, common.payload)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            let n = notification
            try container.encode(n.id, forKey: .id)
            try container.encode(n.token, forKey: .token)
            try container.encodeIfPresent(n.apnsID, forKey: .apnsID)
            if differs(.production) { try container.encode(n.production, forKey: .production) }
            if differs(.topic) { try container.encode(n.topic, forKey: .topic) }
            if differs(.pushType) { try container.encode(n.pushType, forKey: .pushType) }
            if differs(.priority) { try container.encode(n.priority, forKey: .priority) }
            // Against a common value, none is written as null; with no common, left out.
            if differs(.expiration) {
                if common == nil { try container.encodeIfPresent(n.expiration, forKey: .expiration) } else { try container.encode(n.expiration, forKey: .expiration) }
            }
            if differs(.collapseID) {
                if common == nil { try container.encodeIfPresent(n.collapseID, forKey: .collapseID) } else { try container.encode(n.collapseID, forKey: .collapseID) }
            }
            if differs(.payload) { try container.encode(n.payload, forKey: .payload) }
        }
    }
}

/// What APNs answered to one notification: `status` 200 sent; else its `reason`; 410's
/// `timestamp` (ms); `retry_after` (s) for 429/503; status 0 when the request never got an answer.
public struct ApnsResult: Codable, Equatable, Sendable {
    public var id: String
    public var status: Int
    public var reason: String?
    public var timestamp: Double?
    public var retryAfter: Double?
    public init(id: String, status: Int, reason: String? = nil, timestamp: Double? = nil, retryAfter: Double? = nil) {
        self.id = id
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.retryAfter = retryAfter
    }
    enum CodingKeys: String, CodingKey { case id, status, reason, timestamp, retryAfter = "retry_after" }
}

public struct ApnsSent: Codable, Equatable, Sendable {
    public var results: [ApnsResult]
    public init(results: [ApnsResult]) { self.results = results }

    enum CodingKeys: String, CodingKey { case results }

    /// The results read from their tree (`TreeFields`), not key by key through the decoder.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let tree = try container.decode(JSONValue.self, forKey: .results)
        guard let results = try treeItems(tree, as: ApnsResult.self, path: [CodingKeys.results], { item, path in
            let fields = try TreeFields(item, as: ApnsResult.self, path: path)
            typealias Key = ApnsResult.CodingKeys
            return ApnsResult(id: try fields.string(required: Key.id), status: try fields.int(required: Key.status), reason: try fields.string(Key.reason),
                              timestamp: try fields.double(Key.timestamp), retryAfter: try fields.double(Key.retryAfter))
        }) else {
            throw DecodingError.valueNotFound([ApnsResult].self, .init(codingPath: [CodingKeys.results], debugDescription: "results is null"))
        }
        self.results = results
    }
}
