import Foundation
import JSON
import WireTime

/// What every device of a push receives, read from `body`: its kind and the payload before the
/// per-device parts (the badge a "+N" gives each device, and `_j_msgid`).
public struct PushContent: Codable, Equatable, Sendable {
    public var kind: PushKind
    /// The payload: `aps` plus the app's extras.
    public var payload: JSONValue
    /// `badge` as given: "N" sets it, "+N"/"-N" change each device's server-kept value.
    public var badge: String?
    /// An in-app message's pages (empty: any).
    public var pages: [String]?
    /// An in-app message's own expiry (Unix seconds), when it gives one.
    public var expiresAt: Double?

    enum CodingKeys: String, CodingKey { case kind, payload, badge, pages, expiresAt }

    /// The kinds a push body may carry, by their keys in `body` (EngageLab's v4, and JPush's v3 at
    /// the top level): one per push, every entrance passes each of them on.
    public static let kinds = ["notification", "message", "live_activity", "voip", "inapp_message"]

    public static let interruptionLevels: Set<String> = ["passive", "active", "time-sensitive", "critical"]
    public static let liveActivityEvents: Set<String> = ["start", "update", "end"]

    public init(_ body: JSONValue?, now: Date) throws(CommandError) {
        guard case .object(let body)? = body else { throw .missing("body is missing or not an object") }
        try Self.checkPlatform(body["platform"])
        let kinds = Self.kinds.filter { body[$0] != nil }
        guard !kinds.isEmpty else { throw .missing("body names nothing to send: give one of \(Self.kinds.joined(separator: ", "))") }
        if kinds.contains("voip"), kinds.count > 1 { throw .badField("body.voip goes alone, not with \(kinds.filter { $0 != "voip" }.joined(separator: ", "))") }
        guard kinds.count == 1 else { throw .badField("body gives \(kinds.joined(separator: " and ")): send one kind per push") }
        switch kinds[0] {
        case "voip": try self.init(voip: body["voip"])
        case "live_activity": try self.init(liveActivity: body["live_activity"], now: now)
        case "message": try self.init(message: body["message"])
        case "inapp_message": try self.init(inapp: body["inapp_message"])
        default: try self.init(notification: body["notification"])
        }
    }

    /// The payload one device receives: the badge value it gets (when the push has one) and the msg_id.
    public func payload(msgID: String, badge value: Int?) -> String {
        var payload = self.payload
        if case .object(var object) = payload {
            if let value, case .object(var aps)? = object["aps"] {
                aps["badge"] = .number(Double(value))
                object["aps"] = .object(aps)
            }
            object["_j_msgid"] = .string(msgID)
            payload = .object(object)
        }
        return String(decoding: WireCodec.encode(payload), as: UTF8.self)
    }

    /// Refuses a push whose payload, at its largest (a five-digit badge, the longest msg_id), APNs
    /// would refuse.
    public func checkSize() throws(CommandError) {
        let largest = payload(msgID: String(repeating: "9", count: 20), badge: badge == nil ? nil : 99_999)
        guard largest.utf8.count <= kind.maxPayloadBytes else {
            throw CommandError(.pushTooBig, "the notification's payload is \(largest.utf8.count) bytes, APNs takes at most \(kind.maxPayloadBytes)")
        }
    }

    // MARK: kinds

    private init(notification: JSONValue?) throws(CommandError) {
        guard case .object(let notification)? = notification else { throw .badField("body.notification must be an object") }
        let ios: JSONObject
        switch notification["ios"] {
        case nil: ios = JSONObject()
        case .object(let object)?: ios = object
        default: throw .badField("body.notification.ios must be an object")
        }
        var aps = JSONObject()
        if let alert = try Self.alert(ios["alert"] ?? notification["alert"]) { aps["alert"] = alert }
        if let sound = ios["sound"] {
            guard sound.string != nil || Self.isObject(sound) else { throw .badField("body.notification.ios.sound must be a string or an object") }
            aps["sound"] = sound
        }
        if let given = ios["badge"] { badge = try Self.badge(given) }
        if let flag = ios["content-available"] { if try Self.flag(flag, "content-available") { aps["content-available"] = .number(1) } }
        if let flag = ios["mutable-content"] { if try Self.flag(flag, "mutable-content") { aps["mutable-content"] = .number(1) } }
        for key in ["category", "thread-id"] {
            guard let value = ios[key] else { continue }
            guard let text = value.string, text.utf8.count <= 256 else { throw .badField("body.notification.ios.\(key) must be a string") }
            aps[key] = .string(text)
        }
        if let level = ios["interruption-level"] {
            guard let text = level.string, Self.interruptionLevels.contains(text) else {
                throw .badField("body.notification.ios.interruption-level must be passive, active, time-sensitive or critical")
            }
            aps["interruption-level"] = .string(text)
        }
        let visible = aps["alert"] != nil || aps["sound"] != nil || badge != nil
        guard visible || aps["content-available"] != nil else {
            throw .missing("body.notification has no alert, sound, badge or content-available")
        }
        if let badge, let n = Int(badge) { aps["badge"] = .number(Double(n)) }  // "N" is the same for every device
        kind = visible ? .alert : .background
        payload = try Self.payload(aps: aps, extras: ios["extras"] ?? notification["extras"], "body.notification.ios.extras")
    }

    /// `body.message`: `msg_content`, `title?`, `content_type?`, `extras?`, as the device receives them.
    private init(message: JSONValue?) throws(CommandError) {
        guard case .object(let message)? = message else { throw .badField("body.message must be an object") }
        guard let content = message["msg_content"]?.string, !content.isEmpty else { throw .missing("body.message.msg_content is missing") }
        var fields = JSONObject()
        fields["msg_content"] = .string(content)
        for key in ["title", "content_type"] {
            guard let value = message[key] else { continue }
            guard let text = value.string else { throw .badField("body.message.\(key) must be a string") }
            fields[key] = .string(text)
        }
        if let extras = message["extras"] {
            guard Self.isObject(extras) else { throw .badField("body.message.extras must be an object") }
            fields["extras"] = extras
        }
        kind = .message
        payload = .object(fields)
    }

    public static let inappTypes: Set<String> = ["banner", "interstitial", "full"]

    /// `body.inapp_message`: `type`, `title`, `content`, `target[]`, `click_action?`, `extras?`,
    /// `expires_at?` (RFC 3339 or Unix seconds); the device receives `inapp_type` for `type`.
    private init(inapp: JSONValue?) throws(CommandError) {
        guard case .object(let inapp)? = inapp else { throw .badField("body.inapp_message must be an object") }
        guard let type = inapp["type"]?.string else { throw .missing("body.inapp_message.type is missing") }
        guard Self.inappTypes.contains(type) else { throw .badField("body.inapp_message.type must be banner, interstitial or full") }
        var fields = JSONObject()
        fields["inapp_type"] = .string(type)
        for key in ["title", "content"] {
            guard let text = inapp[key]?.string, !text.isEmpty else { throw .missing("body.inapp_message.\(key) is missing") }
            fields[key] = .string(text)
        }
        var pages: [String] = []
        switch inapp["target"] {
        case nil: break
        case .array(let items)?:
            for item in items {
                guard let page = item.string, !page.isEmpty, page.utf8.count <= 256 else { throw .badField("body.inapp_message.target must be page names") }
                pages.append(page)
            }
        default: throw .badField("body.inapp_message.target must be an array of page names")
        }
        fields["target"] = .array(pages.map(JSONValue.string))
        if let action = inapp["click_action"] {
            guard action.string != nil || Self.isObject(action) else { throw .badField("body.inapp_message.click_action must be a string or an object") }
            fields["click_action"] = action
        }
        if let extras = inapp["extras"] {
            guard Self.isObject(extras) else { throw .badField("body.inapp_message.extras must be an object") }
            fields["extras"] = extras
        }
        switch inapp["expires_at"] {
        case nil: break
        case .number(let seconds)?: expiresAt = seconds.value
        case .string(let text)?:
            guard let date = RFC3339.date(from: text) else { throw .badField("body.inapp_message.expires_at must be RFC 3339 or Unix seconds") }
            expiresAt = date.timeIntervalSince1970
        default: throw .badField("body.inapp_message.expires_at must be RFC 3339 or Unix seconds")
        }
        self.pages = pages
        kind = .inapp
        payload = .object(fields)
    }

    private init(voip: JSONValue?) throws(CommandError) {
        guard case .object(let voip)? = voip else { throw .badField("body.voip must be an object") }
        kind = .voip
        payload = .object(voip)
    }

    private init(liveActivity: JSONValue?, now: Date) throws(CommandError) {
        guard case .object(let wrapper)? = liveActivity, case .object(let ios)? = wrapper["ios"] else {
            throw .badField("body.live_activity.ios must be an object")
        }
        guard let event = ios["event"]?.string else { throw .missing("body.live_activity.ios.event is missing") }
        guard Self.liveActivityEvents.contains(event) else { throw .badField("body.live_activity.ios.event must be start, update or end") }
        guard let state = ios["content-state"], Self.isObject(state) else {
            throw .missing("body.live_activity.ios.content-state is missing or not an object")
        }
        var aps = JSONObject()
        aps["timestamp"] = .number(Double(Int(now.timeIntervalSince1970)))
        aps["event"] = .string(event)
        aps["content-state"] = state
        if event == "start" {
            guard let type = ios["attributes-type"]?.string, !type.isEmpty else { throw .missing("body.live_activity.ios.attributes-type is missing for start") }
            guard let attributes = ios["attributes"], Self.isObject(attributes) else { throw .missing("body.live_activity.ios.attributes is missing for start") }
            aps["attributes-type"] = .string(type)
            aps["attributes"] = attributes
        }
        if let alert = try Self.alert(ios["alert"]) { aps["alert"] = alert }
        for key in ["dismissal-date", "stale-date"] {
            guard let value = ios[key] else { continue }
            guard let seconds = value.number, seconds == seconds.rounded(), seconds >= 0 else {
                throw .badField("body.live_activity.ios.\(key) must be Unix seconds")
            }
            aps[key] = .number(seconds)
        }
        kind = .liveActivity
        payload = .object(["aps": .object(aps)])
    }

    // MARK: fields

    private static func checkPlatform(_ platform: JSONValue?) throws(CommandError) {
        switch platform {
        case nil: throw .missing("body.platform is missing")
        case .string(let name)? where name == "all" || name == "ios": return
        case .array(let names)? where names.contains(.string("ios")): return
        default: throw .badField(#"body.platform must be "all", "ios" or a list with "ios": this deployment sends through APNs"#)
        }
    }

    /// A string, or `title`/`subtitle`/`body` (any of them, strings); nil when absent.
    private static func alert(_ value: JSONValue?) throws(CommandError) -> JSONValue? {
        switch value {
        case nil: return nil
        case .string(let text)?: return text.isEmpty ? nil : .string(text)
        case .object(let object)?:
            var alert = JSONObject()
            for (key, field) in object.members {
                switch key {
                case "title", "subtitle", "body", "title-loc-key", "loc-key", "launch-image":
                    guard field.string != nil else { throw .badField("alert.\(key) must be a string") }
                case "title-loc-args", "loc-args":
                    guard case .array(let items) = field, items.allSatisfy({ $0.string != nil }) else {
                        throw .badField("alert.\(key) must be an array of strings")
                    }
                default:
                    throw .badField("alert.\(key.prefix(32)) is not an alert field")
                }
                alert[key] = field
            }
            return alert.isEmpty ? nil : .object(alert)
        default: throw .badField("alert must be a string or an object of title, subtitle and body")
        }
    }

    /// N, "N", "+N" or "-N" with N in 0...99, as the public push API takes it (and `badge.apply`).
    private static func badge(_ value: JSONValue) throws(CommandError) -> String {
        if let number = value.number {
            guard number == number.rounded(), BadgeChange.stepRange.contains(Int(exactly: number) ?? -1) else {
                throw .badField("badge must be N, \"+N\" or \"-N\" with N in 0...99")
            }
            return String(Int(number))
        }
        guard let text = value.string else { throw .badField(#"badge must be N, "+N" or "-N""#) }
        do { return try BadgeChange(text).text } catch { throw .badField(error.message) }
    }

    /// A badge every device shows as it is, with no server-kept value changed: a fired local
    /// notification's own (0...99999, as `local.add` took it).
    public mutating func fixBadge(_ value: Int) {
        badge = nil
        guard case .object(var object) = payload, case .object(var aps)? = object["aps"] else { return }
        aps["badge"] = .number(Double(value))
        object["aps"] = .object(aps)
        payload = .object(object)
    }

    private static func flag(_ value: JSONValue, _ key: String) throws(CommandError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .number(let n) where n.value == 0 || n.value == 1: return n.value == 1
        default: throw .badField("body.notification.ios.\(key) must be true/false or 0/1")
        }
    }

    private static func isObject(_ value: JSONValue) -> Bool {
        if case .object = value { return true }
        return false
    }

    /// `aps` with the extras beside it; an extra may not be called `aps` or `_j_msgid`.
    private static func payload(aps: JSONObject, extras: JSONValue?, _ field: String) throws(CommandError) -> JSONValue {
        var payload = JSONObject()
        payload["aps"] = .object(aps)
        guard let extras else { return .object(payload) }
        guard case .object(let object) = extras else { throw .badField("\(field) must be an object") }
        for (key, value) in object.members {
            guard key != "aps", key != "_j_msgid" else { throw .badField("\(field).\(key) is a reserved key") }
            payload[key] = value
        }
        return .object(payload)
    }
}
