import Schema
import SQLite

/// App-wide queries: audiences, tag lists and counts, alias lookups.
extension TaggingHandler {
    /// One page of the devices matching the audience; `total` is counted on the first page and
    /// carried in the cursor.
    func resolve(_ p: AudienceResolve, in db: Database) throws -> AudiencePage {
        let audience = try Audience(p)
        try tags.writeCounts(db)
        try tags.writeAudience(db)
        guard let query = try AudienceQuery(audience, in: db, tagStore: tags, now: clock()) else {
            return AudiencePage(registrationIDs: [], nextCursor: nil, total: 0)
        }
        let total = try audience.cursor?.total ?? query.count(db)
        let page = try query.page(db, after: audience.cursor?.after ?? 0, limit: audience.limit)
        let next = page.ids.count == audience.limit ? page.last.map { AudienceCursor(after: $0, total: total).text } : nil
        return AudiencePage(registrationIDs: page.ids, nextCursor: next, total: total)
    }

    func listTags(_ p: AppRef, in db: Database) throws -> TagsReply {
        let app = try Validate.appKey(p.appKey)
        return TagsReply(tags: try tags.list(db, appKey: app).map(\.name))
    }

    func countTags(_ p: TagsCount, in db: Database) throws -> TagCounts {
        let app = try Validate.appKey(p.appKey)
        guard let given = p.tags, !given.isEmpty else { throw CommandError.empty("tags is missing or empty") }
        guard given.count <= TagRules.maxTagsPerCall else {
            throw CommandError(.tooManyTags, "\(given.count) tags in one call; at most \(TagRules.maxTagsPerCall)")
        }
        var names: [String] = []
        for name in given { names.append(try TagRules.validateTag(name)) }
        var counts: [String: Int] = [:]
        for name in names {
            counts[name] = try tags.devices(db, appKey: app, name: name)
        }
        return TagCounts(counts: counts)
    }

    func lookupAlias(_ p: AliasLookup, in db: Database) throws -> AliasDevices {
        let app = try Validate.appKey(p.appKey)
        let alias = try TagRules.validateAlias(p.alias)
        return AliasDevices(registrationIDs: try devices.devices(db, appKey: app, alias: alias))
    }
}
