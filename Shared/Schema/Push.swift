// Payloads and replies of the `push` service (reference/commands.md, section "push"). Field names
// follow EngageLab's v4 push body, so the REST layer maps one to one.
import JSON

/// `push.send` and `push.validate`: notify an audience. `to` and `body` keep the shapes the app
/// chooses (EngageLab's v4 body); the push service reads and checks them (`PushKit.PushRequest`).
public struct PushSend: Codable, Equatable, Sendable {
    public var appKey: String?
    /// `"all"`, or an object of `registration_id`, `alias`, `tag`, `tag_and`, `tag_not`, `live_activity_id`.
    public var to: JSONValue?
    /// `platform`, one of `notification` / `live_activity` / `voip` (/ `message` / `inapp_message`), and `options`.
    public var body: JSONValue?
    public var requestID: String?
    public var customArgs: JSONValue?
    public init(appKey: String?, to: JSONValue?, body: JSONValue?, requestID: String? = nil, customArgs: JSONValue? = nil) {
        self.appKey = appKey
        self.to = to
        self.body = body
        self.requestID = requestID
        self.customArgs = customArgs
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", to, body, requestID = "request_id", customArgs = "custom_args" }
}

/// A push accepted (`msg_id`, durable when this leaves) or validated (no `msg_id`).
public struct PushAccepted: Codable, Equatable, Sendable {
    public var msgID: String?
    public var requestID: String?
    /// `push.validate` only: the payload each device would get (APNs' JSON for a notification, VoIP or
    /// Live Activity push; the channel's for a custom or in-app message), without a per-device badge.
    public var preview: JSONValue?
    public init(msgID: String?, requestID: String?, preview: JSONValue? = nil) {
        self.msgID = msgID
        self.requestID = requestID
        self.preview = preview
    }
    enum CodingKeys: String, CodingKey { case msgID = "msg_id", requestID = "request_id", preview }
}

/// `push.list`: the app's messages, newest first, `limit` (1...100, 20) at a time from before msg_id `before`.
public struct PushListQuery: Codable, Equatable, Sendable {
    public var appKey: String?
    public var before: String?
    public var limit: Int?
    public init(appKey: String?, before: String? = nil, limit: Int? = nil) {
        self.appKey = appKey
        self.before = before
        self.limit = limit
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", before, limit }
}

/// One message of `push.list`: what it was, to whom, and where it stands.
public struct PushListEntry: Codable, Equatable, Sendable {
    public var msgID: String
    public var createdAt: String
    public var state: String
    public var kind: String
    /// The audience as `push.send` took it: "all" or the object of its kinds.
    public var to: JSONValue
    public var payload: JSONValue
    public var targets: Int
    public var sent: Int
    public var failed: Int
    public var pending: Int
    public init(msgID: String, createdAt: String, state: String, kind: String, to: JSONValue, payload: JSONValue,
                targets: Int, sent: Int, failed: Int, pending: Int) {
        self.msgID = msgID
        self.createdAt = createdAt
        self.state = state
        self.kind = kind
        self.to = to
        self.payload = payload
        self.targets = targets
        self.sent = sent
        self.failed = failed
        self.pending = pending
    }
    enum CodingKeys: String, CodingKey {
        case msgID = "msg_id", createdAt = "created_at", state, kind, to, payload, targets, sent, failed, pending
    }
}

public struct PushListReply: Codable, Equatable, Sendable {
    public var messages: [PushListEntry]
    /// The `before` of the next page; absent on the last.
    public var next: String?
    public init(messages: [PushListEntry], next: String?) {
        self.messages = messages
        self.next = next
    }
}

/// `push.device_history`: the last `limit` (1...100, 20) messages that went to one device of the app.
public struct PushDeviceHistoryQuery: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var limit: Int?
    public init(appKey: String?, registrationID: String?, limit: Int? = nil) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.limit = limit
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", limit }
}

public struct PushDeviceHistoryEntry: Codable, Equatable, Sendable {
    public var msgID: String
    public var createdAt: String
    /// `sent`, `failed`, `pending` or `withdrawn`.
    public var status: String
    public var reason: String?
    /// When it was sent or failed (the sender's answer recorded); nil while pending.
    public var answeredAt: String?
    public init(msgID: String, createdAt: String, status: String, reason: String?, answeredAt: String? = nil) {
        self.msgID = msgID
        self.createdAt = createdAt
        self.status = status
        self.reason = reason
        self.answeredAt = answeredAt
    }
    enum CodingKeys: String, CodingKey { case msgID = "msg_id", createdAt = "created_at", status, reason, answeredAt = "answered_at" }
}

public struct PushDeviceHistoryReply: Codable, Equatable, Sendable {
    public var deliveries: [PushDeviceHistoryEntry]
    public init(deliveries: [PushDeviceHistoryEntry]) { self.deliveries = deliveries }
}

/// `push.status`: up to 100 messages of the app; the shape of `stats.message`'s question.
public typealias PushStatusQuery = StatsMessage

/// Where one message stands. `failed` counts failures by APNs reason; `received` and `opened` come
/// from analytics' statistics (what devices reported).
public struct MessageStatus: Codable, Equatable, Sendable {
    public var targets: Int
    public var sent: Int
    public var failed: [String: Int]
    public var pending: Int
    /// `queued`, `sending`, `done` or `withdrawn`.
    public var state: String
    public var received: Int
    public var opened: Int
    /// Targets not sent because the message was withdrawn first (`push.withdraw`).
    public var withdrawn: Int
    public init(targets: Int, sent: Int, failed: [String: Int], pending: Int, state: String, received: Int = 0, opened: Int = 0,
                withdrawn: Int = 0) {
        self.targets = targets
        self.sent = sent
        self.failed = failed
        self.pending = pending
        self.state = state
        self.received = received
        self.opened = opened
        self.withdrawn = withdrawn
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        targets = try container.decode(Int.self, forKey: .targets)
        sent = try container.decode(Int.self, forKey: .sent)
        failed = try container.decode([String: Int].self, forKey: .failed)
        pending = try container.decode(Int.self, forKey: .pending)
        state = try container.decode(String.self, forKey: .state)
        received = try container.decode(Int.self, forKey: .received)
        opened = try container.decode(Int.self, forKey: .opened)
        withdrawn = try container.decodeIfPresent(Int.self, forKey: .withdrawn) ?? 0
    }
}

/// The answer to `push.status`: msg_id → status; a msg_id the app never sent is absent.
public struct PushStatusReply: Codable, Equatable, Sendable {
    public var messages: [String: MessageStatus]
    public init(messages: [String: MessageStatus]) { self.messages = messages }
}

/// `push.device_status`: what became of one message on some devices.
public struct PushDeviceStatusQuery: Codable, Equatable, Sendable {
    public var appKey: String?
    public var msgID: String?
    public var registrationIDs: [String]?
    public init(appKey: String?, msgID: String?, registrationIDs: [String]?) {
        self.appKey = appKey
        self.msgID = msgID
        self.registrationIDs = registrationIDs
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", msgID = "msg_id", registrationIDs = "registration_ids" }
}

/// One device's part in a message: `sent`, `failed` (with the APNs `reason`), `pending` or `not_target`.
public struct DeliveryStatus: Codable, Equatable, Sendable {
    public var status: String
    public var reason: String?
    public init(status: String, reason: String? = nil) {
        self.status = status
        self.reason = reason
    }
}

public struct PushDeviceStatusReply: Codable, Equatable, Sendable {
    public var devices: [String: DeliveryStatus]
    public init(devices: [String: DeliveryStatus]) { self.devices = devices }
}

/// `push.withdraw`: nothing more is sent for the message.
public struct PushWithdraw: Codable, Equatable, Sendable {
    public var appKey: String?
    public var msgID: String?
    public init(appKey: String?, msgID: String?) {
        self.appKey = appKey
        self.msgID = msgID
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", msgID = "msg_id" }
}

public struct PushWithdrawn: Codable, Equatable, Sendable {
    public var msgID: String
    public init(msgID: String) { self.msgID = msgID }
    enum CodingKeys: String, CodingKey { case msgID = "msg_id" }
}

/// `apns.credentials`: the app's APNs provider key (token-based authentication). Kept encrypted;
/// no read ever returns `p8`.
public struct ApnsCredentials: Codable, Equatable, Sendable {
    public var appKey: String?
    public var teamID: String?
    public var keyID: String?
    public var bundleID: String?
    /// The .p8 key's PEM text.
    public var p8: String?
    public init(appKey: String?, teamID: String?, keyID: String?, bundleID: String?, p8: String?) {
        self.appKey = appKey
        self.teamID = teamID
        self.keyID = keyID
        self.bundleID = bundleID
        self.p8 = p8
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", teamID = "team_id", keyID = "key_id", bundleID = "bundle_id", p8 }
}
