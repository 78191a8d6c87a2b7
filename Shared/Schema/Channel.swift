import JSON

// The device channel's commands (DESIGN.md, "The device channel"): `devices.status` and
// `page.enter` / `page.leave` in the catalog, and the `live.*` commands between `push` and the
// channel processes, and between a process holding a connection and the shard owning its device.

/// What a message sent over the channel is: a custom message, an in-app message, or a notification
/// shown in the app because the device's user turned notifications off (a reminder).
public enum LiveKind: String, Codable, Sendable {
    case message, inapp, reminder
}

/// One message in a device's mailbox, as a shard hands it out: its row in the mailbox (`seq`) and
/// the fields the device receives. A device gets its messages in msg_id order (the order push
/// accepted them), whatever order their deliveries reached the shard in.
public struct LiveEntry: Codable, Equatable, Sendable {
    public var seq: Int64
    public var msgID: String
    public var kind: LiveKind
    /// The message's own fields (`msg_content`, `title`…), written beside `type`, `msg_id` and `kind`.
    public var content: JSONValue
    public init(seq: Int64, msgID: String, kind: LiveKind, content: JSONValue) {
        self.seq = seq
        self.msgID = msgID
        self.kind = kind
        self.content = content
    }
    enum CodingKeys: String, CodingKey { case seq, msgID = "msg_id", kind, content }

    /// Whether it comes before `other`: msg_ids are numbers, a longer one is a larger one.
    public func precedes(_ other: LiveEntry) -> Bool {
        (msgID.utf8.count, msgID, seq) < (other.msgID.utf8.count, other.msgID, other.seq)
    }
}

/// `live.deliver` (internal, from `push`): one message for up to 1000 of an app's devices. The
/// gateway splits `registration_ids` over the channel shards.
public struct LiveDeliver: Codable, Equatable, Sendable {
    public var appKey: String?
    public var msgID: String?
    public var kind: LiveKind?
    public var content: JSONValue?
    /// In-app messages: the pages it is shown on (empty: any).
    public var target: [String]?
    /// Unix seconds after which it is no longer delivered; 0 (time_to_live 0): only to devices connected now.
    public var expiresAt: Double?
    public var registrationIDs: [String]?
    public init(appKey: String?, msgID: String?, kind: LiveKind?, content: JSONValue?, target: [String]? = nil,
                expiresAt: Double?, registrationIDs: [String]?) {
        self.appKey = appKey
        self.msgID = msgID
        self.kind = kind
        self.content = content
        self.target = target
        self.expiresAt = expiresAt
        self.registrationIDs = registrationIDs
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", msgID = "msg_id", kind, content, target, expiresAt = "expires_at", registrationIDs = "registration_ids"
    }
}

/// What became of each device of a `live.deliver`: `queued` (kept until acknowledged or expired,
/// and sent at once when connected), `offline` (time_to_live 0 and not connected: dropped),
/// `unknown` (not a device of the app, or deleted).
public struct LiveDelivered: Codable, Equatable, Sendable {
    public var devices: [String: String]
    public init(devices: [String: String]) { self.devices = devices }
}

/// Where one device connection is: the channel process (its shard index and the boot that made the
/// connection) and the connection's number there.
public struct LiveConnection: Codable, Equatable, Hashable, Sendable {
    public var host: Int
    public var boot: String
    public var connection: UInt64
    public init(host: Int, boot: String, connection: UInt64) {
        self.host = host
        self.boot = boot
        self.connection = connection
    }
}

/// `live.attach` (internal): a device proved itself on a connection (`hello`); its shard refuses a
/// replayed hello or a deleted device, records where it is connected, and answers what is waiting.
public struct LiveAttach: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var at: LiveConnection?
    /// The hello's proof (hex HMAC), remembered for its clock window so it cannot be used twice.
    public var proof: String?
    public var helloTS: Int64?
    public init(appKey: String?, registrationID: String?, at: LiveConnection?, proof: String?, helloTS: Int64?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.at = at
        self.proof = proof
        self.helloTS = helloTS
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", at, proof, helloTS = "hello_ts"
    }
}

/// The reply to `live.attach` and `live.more`: the device's live messages in mailbox order, a part
/// at a time (`more`: ask `live.more` after the last for the next part).
public struct LiveAttached: Codable, Equatable, Sendable {
    public var pending: [LiveEntry]
    public var more: Bool
    public init(pending: [LiveEntry], more: Bool = false) {
        self.pending = pending
        self.more = more
    }
}

/// `live.more` (internal): the next part of a connection's backlog, after msg_id `after`.
public struct LiveMore: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var at: LiveConnection?
    public var after: String?
    public init(appKey: String?, registrationID: String?, at: LiveConnection?, after: String?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.at = at
        self.after = after
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", at, after }
}

/// `live.detach` (internal): a connection ended.
public struct LiveDetach: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var at: LiveConnection?
    public init(appKey: String?, registrationID: String?, at: LiveConnection?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.at = at
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", at }
}

/// `live.ack` (internal): these devices of an app acknowledged these messages (a broadcast's
/// acknowledgements go together; the gateway splits `registration_ids` over the shards).
public struct LiveAck: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationIDs: [String]?
    public var msgIDs: [String]?
    public init(appKey: String?, registrationIDs: [String]?, msgIDs: [String]?) {
        self.appKey = appKey
        self.registrationIDs = registrationIDs
        self.msgIDs = msgIDs
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationIDs = "registration_ids", msgIDs = "msg_ids" }
}

/// The reply to `live.ack`: per device, the msg_ids it acknowledged for the first time (each counts
/// `received` once).
public struct LiveAcked: Codable, Equatable, Sendable {
    public var first: [String: [String]]
    public init(first: [String: [String]]) { self.first = first }
}

/// `live.push` (internal, sent by a shard to the channel process holding the connections): messages
/// for connected devices, and connections to close (the device connected elsewhere, or was deleted).
public struct LivePush: Codable, Equatable, Sendable {
    public var sends: [Send]
    public var closes: [Close]
    public init(sends: [Send] = [], closes: [Close] = []) {
        self.sends = sends
        self.closes = closes
    }
    public var isEmpty: Bool { sends.isEmpty && closes.isEmpty }

    public struct Send: Codable, Equatable, Sendable {
        public var registrationID: String
        public var at: LiveConnection
        public var entries: [LiveEntry]
        public init(registrationID: String, at: LiveConnection, entries: [LiveEntry]) {
            self.registrationID = registrationID
            self.at = at
            self.entries = entries
        }
        enum CodingKeys: String, CodingKey { case registrationID = "registration_id", at, entries }
    }

    public struct Close: Codable, Equatable, Sendable {
        public var registrationID: String
        public var at: LiveConnection
        public var code: Int
        public var reason: String
        public init(registrationID: String, at: LiveConnection, code: Int, reason: String) {
            self.registrationID = registrationID
            self.at = at
            self.code = code
            self.reason = reason
        }
        enum CodingKeys: String, CodingKey { case registrationID = "registration_id", at, code, reason }
    }
}

/// `live.reset` (internal, to every shard): channel process `host` started as `boot`; connections
/// its earlier boots held are gone.
public struct LiveReset: Codable, Equatable, Sendable {
    public var host: Int?
    public var boot: String?
    public init(host: Int?, boot: String?) {
        self.host = host
        self.boot = boot
    }
}

/// `page.enter` / `page.leave`: the device's app shows, or stops showing, a page (`pageEnterTo:`).
public struct PageReport: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var page: String?
    public init(appKey: String?, registrationID: String?, page: String?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.page = page
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", page }
}

/// `devices.status`: which of an app's devices hold a live connection now.
public struct DevicesStatusQuery: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationIDs: [String]?
    public init(appKey: String?, registrationIDs: [String]?) {
        self.appKey = appKey
        self.registrationIDs = registrationIDs
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationIDs = "registration_ids" }
}

public struct DeviceOnline: Codable, Equatable, Sendable {
    public var online: Bool
    /// RFC 3339: when the device was last connected (now, when it is); absent when it never was.
    public var lastOnlineTime: String?
    public init(online: Bool, lastOnlineTime: String?) {
        self.online = online
        self.lastOnlineTime = lastOnlineTime
    }
    enum CodingKeys: String, CodingKey { case online, lastOnlineTime = "last_online_time" }
}

public struct DevicesStatus: Codable, Equatable, Sendable {
    public var devices: [String: DeviceOnline]
    public init(devices: [String: DeviceOnline]) { self.devices = devices }
}
