import JSON

/// Whom a push goes to: `"all"`, or the kinds of `to` ANDed together (`registration_id`, `alias`
/// and `tag` each a union, `tag_and` an intersection, `tag_not` excluded, `live_activity_id` the
/// devices holding that activity). Kept with the message as the `audience.resolve` filters it pages.
public struct PushTarget: Codable, Equatable, Sendable {
    public var registrationIDs: [String]?
    public var aliases: [String]?
    public var tags: [String]?
    public var tagAnd: [String]?
    public var tagNot: [String]?
    public var liveActivityID: String?

    enum CodingKeys: String, CodingKey { case registrationIDs, aliases, tags, tagAnd, tagNot, liveActivityID }

    public static let maxTagsPerKind = 20
    public static let maxIDs = 1000

    /// Reads `to` as EngageLab's v4 body gives it.
    public init(_ to: JSONValue?) throws(CommandError) {
        guard let to else { throw .missing("to is missing") }
        if to.string == "all" { return }
        guard case .object(let object) = to else { throw .badField(#"to must be "all" or an object"#) }
        for (key, value) in object.members {
            switch key {
            case "registration_id": registrationIDs = try Self.list(value, key, max: Self.maxIDs)
            case "alias": aliases = try Self.list(value, key, max: Self.maxIDs)
            case "tag": tags = try Self.list(value, key, max: Self.maxTagsPerKind)
            case "tag_and": tagAnd = try Self.list(value, key, max: Self.maxTagsPerKind)
            case "tag_not": tagNot = try Self.list(value, key, max: Self.maxTagsPerKind)
            case "live_activity_id":
                guard let id = value.string else { throw .badField("to.live_activity_id must be a string") }
                do { liveActivityID = try Validate.liveActivityID(id) } catch { throw .badField("to.\(error.message)") }
            default: throw .badField("to.\(key.prefix(32)) is not an audience kind")
            }
        }
        guard registrationIDs != nil || aliases != nil || tags != nil || tagAnd != nil || tagNot != nil || liveActivityID != nil else {
            throw .missing(#"to names no audience: give "all" or at least one kind"#)
        }
    }

    /// `"all"`: every device of the app.
    public var isAll: Bool { registrationIDs == nil && aliases == nil && tags == nil && tagAnd == nil && tagNot == nil && liveActivityID == nil }

    /// The `audience.resolve` query of one page of this audience.
    public func query(appKey: String, cursor: String?, limit: Int) -> AudienceResolve {
        AudienceResolve(appKey: appKey, registrationIDs: registrationIDs, aliases: aliases, tags: tags, tagAnd: tagAnd,
                        tagNot: tagNot, all: isAll ? true : nil, cursor: cursor, limit: limit)
    }

    /// 1...`max` strings, each non-empty and at most 256 bytes, without repeats.
    private static func list(_ value: JSONValue, _ key: String, max: Int) throws(CommandError) -> [String] {
        guard case .array(let items) = value else { throw .badField("to.\(key) must be an array of strings") }
        guard !items.isEmpty else { throw .badField("to.\(key) is empty") }
        guard items.count <= max else { throw .badField("to.\(key) names \(items.count), at most \(max)") }
        var seen = Set<String>()
        var strings: [String] = []
        for item in items {
            guard let text = item.string, !text.isEmpty, text.utf8.count <= 256 else {
                throw .badField("to.\(key) must hold non-empty strings of at most 256 bytes")
            }
            if seen.insert(text).inserted { strings.append(text) }
        }
        return strings
    }
}

extension PushTarget {
    /// An audience of exactly these devices and nothing else.
    public static func only(_ ids: [String]?) -> PushTarget {
        var target = PushTarget()
        target.registrationIDs = ids
        return target
    }

    private init() {}
}
