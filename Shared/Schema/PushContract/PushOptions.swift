import JSON

/// `body.options` of a push.
public struct PushOptions: Codable, Equatable, Sendable {
    /// Seconds APNs keeps trying an offline device (`apns-expiration`); nil = APNs' default, 0 = once.
    public var timeToLive: Int?
    /// Production or sandbox APNs for every device; nil = as each device registered.
    public var apnsProduction: Bool?
    /// `apns-collapse-id`; the msg_id when not given, so a page re-sent after a crash collapses on the phone.
    public var collapseID: String?
    /// Minutes over which the sends are spread (0 = as fast as possible).
    public var bigPushDuration: Int = 0
    /// Idempotency key: the same cid within a day answers the first msg_id and sends nothing again.
    public var cid: String?
    /// A notification reaches a device whose user turned notifications off as a reminder over the
    /// device channel, shown by the app itself.
    public var notificationReminder = false

    enum CodingKeys: String, CodingKey { case timeToLive, apnsProduction, collapseID, bigPushDuration, cid, notificationReminder }

    public static let maxTimeToLive = 30 * 86_400
    public static let maxBigPushDuration = 1440

    public init(_ options: JSONValue?) throws(CommandError) {
        guard let options else { return }
        guard case .object(let object) = options else { throw .badField("body.options must be an object") }
        for (key, value) in object.members {
            switch key {
            case "time_to_live": timeToLive = try Self.integer(value, key, in: 0...Self.maxTimeToLive)
            case "apns_production":
                guard case .bool(let flag) = value else { throw .badField("body.options.apns_production must be true or false") }
                apnsProduction = flag
            case "apns_collapse_id": collapseID = try Self.text(value, key, maxBytes: 64)
            case "override_msg_id":
                // The message this one replaces on the phone: it shares its collapse id.
                let replaced = try Self.text(value, key, maxBytes: 64)
                if collapseID == nil { collapseID = replaced }
            case "big_push_duration": bigPushDuration = try Self.integer(value, key, in: 0...Self.maxBigPushDuration)
            case "cid": cid = try Self.text(value, key, maxBytes: 64)
            case "notification_reminder":
                guard case .bool(let flag) = value else { throw .badField("body.options.notification_reminder must be true or false") }
                notificationReminder = flag
            case "third_party_channel", "classification", "sendno":
                break  // Android or vendor channels; nothing of APNs
            default: throw .badField("body.options.\(key.prefix(32)) is not an option")
            }
        }
    }

    private static func integer(_ value: JSONValue, _ key: String, in range: ClosedRange<Int>) throws(CommandError) -> Int {
        guard let number = value.number, number == number.rounded(), range.contains(Int(exactly: number) ?? -1) else {
            throw .badField("body.options.\(key) must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(number)
    }

    private static func text(_ value: JSONValue, _ key: String, maxBytes: Int) throws(CommandError) -> String {
        if let number = value.number {
            guard number == number.rounded(), let whole = Int64(exactly: number) else {
                throw .badField("body.options.\(key) must be a string, or a whole number")
            }
            return String(whole)
        }
        guard let text = value.string, !text.isEmpty, text.utf8.count <= maxBytes, HeaderValue.isValid(text) else {
            throw .badField("body.options.\(key) must be a string of 1...\(maxBytes) printable ASCII characters, not starting or ending with a space")
        }
        return text
    }
}
