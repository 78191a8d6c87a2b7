// Payloads and replies of the `badge` service (reference/commands.md).

/// `badge.set`: store the device's badge value (0...99999).
public struct BadgeSet: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var value: Int?
    public init(appKey: String?, registrationID: String?, value: Int?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.value = value
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", value }
}

/// The device's stored badge after `badge.set`, `badge.reset` or `badge.get`.
public struct BadgeValue: Codable, Equatable, Sendable {
    public var value: Int
    public init(value: Int) { self.value = value }
}

/// `badge.apply`: set (`"N"`) or change (`"+N"`, `"-N"`) the badges of several devices for one push;
/// the same `msg_id` applied twice changes nothing.
public struct BadgeApply: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationIDs: [String]?
    public var badge: String?
    public var msgID: String?
    public init(appKey: String?, registrationIDs: [String]?, badge: String?, msgID: String?) {
        self.appKey = appKey
        self.registrationIDs = registrationIDs
        self.badge = badge
        self.msgID = msgID
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationIDs = "registration_ids", badge, msgID = "msg_id"
    }
}

/// The answer to `badge.apply`: registration ID → badge value after this push (for a retried push, the
/// value its first application gave), and `unknown`, the IDs the service does not know for this app_key
/// (never registered, deleted, or another app's); those were left alone.
public struct BadgeValues: Codable, Equatable, Sendable {
    public var values: [String: Int]
    public var unknown: [String]?
    public init(values: [String: Int], unknown: [String]? = nil) {
        self.values = values
        self.unknown = unknown
    }
}

/// `badge.values` (the app): the stored badges of up to 1000 of its devices, answered as `BadgeValues`
/// (a device never set reads 0; one this service does not know for the app is in `unknown`). The
/// shape of `devices.status`' question: an app and some of its devices.
public typealias BadgeValuesQuery = DevicesStatusQuery
