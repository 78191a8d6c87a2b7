import Schema

/// A validated `audience.resolve` request: each kind's values (nil when the kind is absent).
struct Audience {
    static let maxKeys = 20
    static let maxIDs = 1000
    static let defaultLimit = 1000
    static let maxLimit = 10_000

    let appKey: String
    let registrationIDs: [String]?
    let aliases: [String]?
    let tags: [String]?
    let tagAnd: [String]?
    let tagNot: [String]?
    let channels: [String]?
    let cursor: AudienceCursor?
    let limit: Int

    init(_ p: AudienceResolve) throws(CommandError) {
        appKey = try Validate.appKey(p.appKey)
        registrationIDs = try Self.values(p.registrationIDs, "registration_id", max: Self.maxIDs) { id throws(CommandError) in
            try Validate.registrationID(id)
        }
        aliases = try Self.values(p.aliases, "alias", max: Self.maxIDs) { alias throws(CommandError) in
            try TagRules.validateAlias(alias)
        }
        tags = try Self.values(p.tags, "tag", max: Self.maxKeys) { tag throws(CommandError) in try TagRules.validateTag(tag) }
        tagAnd = try Self.values(p.tagAnd, "tag_and", max: Self.maxKeys) { tag throws(CommandError) in
            try TagRules.validateTag(tag)
        }
        tagNot = try Self.values(p.tagNot, "tag_not", max: Self.maxKeys) { tag throws(CommandError) in
            try TagRules.validateTag(tag)
        }
        channels = try Self.values(p.channels, "channel", max: Self.maxKeys) { channel throws(CommandError) in
            try Validate.channel(channel)
        }
        guard registrationIDs != nil || aliases != nil || tags != nil || tagAnd != nil || tagNot != nil || channels != nil
                || p.all == true else {
            throw .empty("audience names nothing: give registration_id, alias, tag, tag_and, tag_not or channel, or all: true")
        }
        cursor = try p.cursor.map { text throws(CommandError) in try AudienceCursor(text) }
        limit = p.limit ?? Self.defaultLimit
        guard (1...Self.maxLimit).contains(limit) else { throw .invalid("limit must be 1...\(Self.maxLimit)") }
    }

    /// A kind's distinct values as `clean` returns them (validated, in the form stored): nil when
    /// absent, 6001 when given empty, 6017 past `max`.
    private static func values(_ given: [String]?, _ kind: String, max: Int,
                               clean: (String) throws(CommandError) -> String) throws(CommandError) -> [String]? {
        guard let given else { return nil }
        guard !given.isEmpty else { throw .empty("\(kind) is empty") }
        var seen = Set<String>()
        let distinct = given.filter { seen.insert($0).inserted }
        guard distinct.count <= max else { throw .invalid("\(kind) has \(distinct.count) values; at most \(max)") }
        var cleaned: [String] = []
        for value in distinct { cleaned.append(try clean(value)) }
        seen = []
        return cleaned.filter { seen.insert($0).inserted }
    }
}
