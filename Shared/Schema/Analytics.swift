// Payloads and replies of the `analytics` service: MA and push statistics (reference/commands.md).
import JSON

/// The user identifiers of the MA seed (`MTMAUserID`). Any JSON is accepted so the service can answer a
/// value that is not a string with a per-field 3013 instead of failing the whole request.
public struct MAUserID: Codable, Equatable, Sendable {
    public var userID: JSONValue?
    public var anonymousID: JSONValue?
    public var email: JSONValue?
    public var phone: JSONValue?
    public init(userID: JSONValue? = nil, anonymousID: JSONValue? = nil, email: JSONValue? = nil,
                phone: JSONValue? = nil) {
        self.userID = userID
        self.anonymousID = anonymousID
        self.email = email
        self.phone = phone
    }
    enum CodingKeys: String, CodingKey { case userID = "user_id", anonymousID = "anonymous_id", email, phone }
}

/// `ma.start`: open MA for an install and get its EUID, matching the user by any identifiers given.
public struct MAStart: Codable, Equatable, Sendable {
    public var appKey: String?
    public var deviceID: String?
    public var user: MAUserID?
    public init(appKey: String?, deviceID: String?, user: MAUserID? = nil) {
        self.appKey = appKey
        self.deviceID = deviceID
        self.user = user
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", deviceID = "device_id", user }
}

/// The answer to `ma.start`.
public struct MAStarted: Codable, Equatable, Sendable {
    public var euid: String
    public init(euid: String) { self.euid = euid }
}

/// `ma.identify`: set user identifiers, which may move the user to another EUID. The identifiers travel
/// as top-level fields (`user_id`, `anonymous_id`, `email`, `phone`) beside `app_key` and `euid`.
/// `device_id` (optional, the install of `ma.start`) makes that install follow the resulting EUID, so
/// its next `ma.start` returns it.
public struct MAIdentify: Codable, Equatable, Sendable {
    public var appKey: String?
    public var euid: String?
    public var user: MAUserID
    public var deviceID: String?
    public init(appKey: String?, euid: String?, user: MAUserID, deviceID: String? = nil) {
        self.appKey = appKey
        self.euid = euid
        self.user = user
        self.deviceID = deviceID
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", euid, deviceID = "device_id" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appKey = try c.decodeIfPresent(String.self, forKey: .appKey)
        euid = try c.decodeIfPresent(String.self, forKey: .euid)
        deviceID = try c.decodeIfPresent(String.self, forKey: .deviceID)
        user = try MAUserID(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(appKey, forKey: .appKey)
        try c.encodeIfPresent(euid, forKey: .euid)
        try c.encodeIfPresent(deviceID, forKey: .deviceID)
    }
}

/// The result for one identifier of `ma.identify`, e.g. `{"code":3003,"msg":"…"}`.
public struct MAFieldResult: Codable, Equatable, Sendable {
    public var code: ResultCode
    public var msg: String?
    public init(code: ResultCode, msg: String? = nil) {
        self.code = code
        self.msg = msg
    }
}

/// The answer to `ma.identify`: the EUID and, in `message`, the per-field results as JSON text, which the
/// SDK hands to the app unchanged. It shares the key with `Reply.message`, so a decoded reply carries it twice.
public struct MAIdentified: Codable, Equatable, Sendable {
    public var euid: String
    public var message: String
    public init(euid: String, message: String) {
        self.euid = euid
        self.message = message
    }

    /// `message` built from per-field results (user_id, anonymous_id, email, phone); "" when there are none.
    public init(euid: String, results: [String: MAFieldResult]) {
        self.euid = euid
        self.message = results.isEmpty ? "" : String(decoding: WireCodec.encode(results), as: UTF8.self)
    }
}

/// The contact details of the MA seed (`MTMAUserContact`): absent or null leaves one unchanged, "" clears it.
public struct MAUserContacts: Codable, Equatable, Sendable {
    public var email: String?
    public var mobilePhone: String?
    public var landlinePhone: String?
    public var whatsappPhone: String?
    public init(email: String? = nil, mobilePhone: String? = nil, landlinePhone: String? = nil,
                whatsappPhone: String? = nil) {
        self.email = email
        self.mobilePhone = mobilePhone
        self.landlinePhone = landlinePhone
        self.whatsappPhone = whatsappPhone
    }
    enum CodingKeys: String, CodingKey {
        case email, mobilePhone = "mobile_phone", landlinePhone = "landline_phone", whatsappPhone = "whatsapp_phone"
    }
}

/// `ma.contact`: set or clear the user's contact details.
public struct MAContact: Codable, Equatable, Sendable {
    public var appKey: String?
    public var euid: String?
    public var contacts: MAUserContacts?
    public init(appKey: String?, euid: String?, contacts: MAUserContacts?) {
        self.appKey = appKey
        self.euid = euid
        self.contacts = contacts
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", euid, contacts }
}

/// One custom event of `ma.events`; `time` is RFC 3339. The service rejects bad events one by one.
public struct MAEvent: Codable, Equatable, Sendable {
    public var name: String?
    public var properties: [String: JSONValue]?
    public var time: String?
    public init(name: String?, properties: [String: JSONValue]? = nil, time: String? = nil) {
        self.name = name
        self.properties = properties
        self.time = time
    }
}

/// `ma.events`: a batch of custom events, with the UTM properties (`utm_source`, …) that apply to all.
public struct MAEvents: Codable, Equatable, Sendable {
    public var appKey: String?
    public var euid: String?
    public var events: [MAEvent]?
    public var utm: [String: String]?
    /// The SDK's session timeout in seconds (MTMA `setNoActiveSessionEndDurationTime:`, 1...86400):
    /// this batch's events are cut into sessions by it instead of the app's default.
    public var sessionTimeout: Double?
    public init(appKey: String?, euid: String?, events: [MAEvent]?, utm: [String: String]? = nil, sessionTimeout: Double? = nil) {
        self.appKey = appKey
        self.euid = euid
        self.events = events
        self.utm = utm
        self.sessionTimeout = sessionTimeout
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", euid, events, utm, sessionTimeout = "session_timeout" }
}

/// The answer to `ma.events`: how many events were stored and, when some were not, which and why.
public struct MAEventsAccepted: Codable, Equatable, Sendable {
    public var accepted: Int
    /// Absent when every event was stored.
    public var rejected: [MARejectedEvent]?
    public init(accepted: Int, rejected: [MARejectedEvent]? = nil) {
        self.accepted = accepted
        self.rejected = rejected
    }
}

/// One event of an `ma.events` batch that was not stored: its position in `events` and the reason.
public struct MARejectedEvent: Codable, Equatable, Sendable {
    public var index: Int
    public var code: ResultCode
    public var message: String
    public init(index: Int, code: ResultCode, message: String) {
        self.index = index
        self.code = code
        self.message = message
    }
}

/// The user-property operations of `ma.property`.
public enum MAPropertyOp: String, Codable, CaseIterable, Sendable, WireName {
    case set, increase, add, remove, delete
    case updateObjectArray = "update_object_array"
    case addObjectArray = "add_object_array"
    case removeObjectArray = "remove_object_array"
}

/// `ma.property`: one user-property operation. Which fields count depends on `op` (see the catalog);
/// JSON null plays the seed's NSNull, so `value` tells null from absent.
public struct MAProperty: Codable, Equatable, Sendable {
    public var appKey: String?
    public var euid: String?
    public var op: MAPropertyOp?
    /// name → value (`set`), number (`increase`) or array of strings (`add`, `remove`).
    public var properties: [String: JSONValue]?
    public var key: String?
    public var value: Patch<JSONValue>
    public var amount: Double?
    /// Strings for `add` / `remove`; an object of subfields for `update_object_array`.
    public var values: JSONValue?
    public var identifierKey: String?
    public var identifierValue: JSONValue?
    public var object: [String: JSONValue]?

    public init(appKey: String?, euid: String?, op: MAPropertyOp?, properties: [String: JSONValue]? = nil,
                key: String? = nil, value: Patch<JSONValue> = .absent, amount: Double? = nil,
                values: JSONValue? = nil, identifierKey: String? = nil, identifierValue: JSONValue? = nil,
                object: [String: JSONValue]? = nil) {
        self.appKey = appKey
        self.euid = euid
        self.op = op
        self.properties = properties
        self.key = key
        self.value = value
        self.amount = amount
        self.values = values
        self.identifierKey = identifierKey
        self.identifierValue = identifierValue
        self.object = object
    }

    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", euid, op, properties, key, value, amount, values
        case identifierKey = "identifier_key", identifierValue = "identifier_value", object
    }
}

/// `ma.channel_value`: the RIDs or tokens of a third-party push channel (`channel_id` > 0).
public struct MAChannelValue: Codable, Equatable, Sendable {
    public var appKey: String?
    public var euid: String?
    public var channelID: Int?
    public var values: [String]?
    public init(appKey: String?, euid: String?, channelID: Int?, values: [String]?) {
        self.appKey = appKey
        self.euid = euid
        self.channelID = channelID
        self.values = values
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", euid, channelID = "channel_id", values }
}

/// The payload of every command that names one MA user and nothing else: `ma.profile`, `ma.erase`.
public struct MAUserRef: Codable, Equatable, Sendable {
    public var appKey: String?
    public var euid: String?
    public init(appKey: String?, euid: String?) {
        self.appKey = appKey
        self.euid = euid
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", euid }
}

/// The answer to `ma.profile`: everything stored about the user. `euid` is the live EUID (another one
/// when the EUID asked about was merged); `channels` maps a `channel_id` to its values (`ma.channel_value`).
public struct MAProfile: Codable, Equatable, Sendable {
    public var properties: [String: JSONValue]
    public var identities: MAUserID
    public var contacts: MAUserContacts
    public var euid: String?
    public var channels: [String: [String]]?
    public init(properties: [String: JSONValue], identities: MAUserID, contacts: MAUserContacts,
                euid: String? = nil, channels: [String: [String]]? = nil) {
        self.properties = properties
        self.identities = identities
        self.contacts = contacts
        self.euid = euid
        self.channels = channels
    }
}

/// The answer to `ma.erase`: how many rows of each kind went with the user. `euids` counts the EUID
/// and those merged into it; `devices` the devices that were bound to it (their next `ma.start`
/// gets a new EUID).
public struct MAErased: Codable, Equatable, Sendable {
    public var euids: Int
    public var identities: Int
    public var contacts: Int
    public var properties: Int
    public var channelValues: Int
    public var events: Int
    public var sessions: Int
    public var installs: Int
    public var devices: Int
    public init(euids: Int = 0, identities: Int = 0, contacts: Int = 0, properties: Int = 0, channelValues: Int = 0,
                events: Int = 0, sessions: Int = 0, installs: Int = 0, devices: Int = 0) {
        self.euids = euids
        self.identities = identities
        self.contacts = contacts
        self.properties = properties
        self.channelValues = channelValues
        self.events = events
        self.sessions = sessions
        self.installs = installs
        self.devices = devices
    }
    enum CodingKeys: String, CodingKey {
        case euids, identities, contacts, properties, channelValues = "channel_values", events, sessions, installs, devices
    }
}

/// What a device reports about a push or a page (`stats.report`).
public enum StatsKind: String, Codable, CaseIterable, Sendable, WireName {
    case received, displayed, opened
    case inappShow = "inapp_show"
    case inappClick = "inapp_click"
    case voipReceived = "voip_received"
    case pageEnter = "page_enter"
    case pageLeave = "page_leave"
}

/// `stats.report`: a device reports that a message was received, displayed, opened, … or a page change.
public struct StatsReport: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var kind: StatsKind?
    public var msgID: String?
    public var page: String?
    public var time: String?
    public init(appKey: String?, registrationID: String?, kind: StatsKind?, msgID: String? = nil,
                page: String? = nil, time: String? = nil) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.kind = kind
        self.msgID = msgID
        self.page = page
        self.time = time
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", kind, msgID = "msg_id", page, time
    }
}

/// `stats.message`: the report counts of some messages.
public struct StatsMessage: Codable, Equatable, Sendable {
    public var appKey: String?
    public var msgIDs: [String]?
    public init(appKey: String?, msgIDs: [String]?) {
        self.appKey = appKey
        self.msgIDs = msgIDs
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", msgIDs = "msg_ids" }
}

/// How many devices reported each kind for one message.
public struct MessageCounts: Codable, Equatable, Sendable {
    public var received: Int
    public var displayed: Int
    public var opened: Int
    public var inappShow: Int
    public var inappClick: Int
    public var voipReceived: Int
    /// What the push service reported: notifications APNs accepted, and those that failed for good.
    public var sent: Int
    public var failed: Int
    public init(received: Int = 0, displayed: Int = 0, opened: Int = 0, inappShow: Int = 0, inappClick: Int = 0,
                voipReceived: Int = 0, sent: Int = 0, failed: Int = 0) {
        self.sent = sent
        self.failed = failed
        self.received = received
        self.displayed = displayed
        self.opened = opened
        self.inappShow = inappShow
        self.inappClick = inappClick
        self.voipReceived = voipReceived
    }
    enum CodingKeys: String, CodingKey {
        case received, displayed, opened, inappShow = "inapp_show", inappClick = "inapp_click"
        case voipReceived = "voip_received", sent, failed
    }
}

/// The answer to `stats.message`: msg_id → counts.
public struct MessageStats: Codable, Equatable, Sendable {
    public var messages: [String: MessageCounts]
    public init(messages: [String: MessageCounts]) { self.messages = messages }
}

/// The width of a `stats.events` bucket.
public enum BucketSize: String, Codable, CaseIterable, Sendable, WireName {
    case hour, day
}

/// `stats.events`: MA event counts between `from` and `to` (RFC 3339), optionally of one event name.
public struct StatsEvents: Codable, Equatable, Sendable {
    public var appKey: String?
    public var from: String?
    public var to: String?
    public var name: String?
    public var bucket: BucketSize?
    public init(appKey: String?, from: String?, to: String?, name: String? = nil, bucket: BucketSize?) {
        self.appKey = appKey
        self.from = from
        self.to = to
        self.name = name
        self.bucket = bucket
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", from, to, name, bucket }
}

/// One bucket of `stats.events`: events counted from `start` (RFC 3339) for one hour or day.
public struct StatsBucket: Codable, Equatable, Sendable {
    public var start: String
    public var count: Int
    public init(start: String, count: Int) {
        self.start = start
        self.count = count
    }
}

/// The answer to `stats.events`.
public struct EventStats: Codable, Equatable, Sendable {
    public var buckets: [StatsBucket]
    public init(buckets: [StatsBucket]) { self.buckets = buckets }
}
