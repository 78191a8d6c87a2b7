import Foundation
import SQLite

/// One audience as SQL that walks an index in device-id order, so a page costs its own size and
/// never loads the whole audience. One kind drives (its rows are the candidates: the given devices,
/// an alias, the union of OR tags or channels, the smallest AND tag, or else every device of the app);
/// the other kinds filter each candidate through the primary keys. The union of several OR tags is a
/// compound SELECT with ORDER BY, which SQLite runs as a merge that stops at the page's LIMIT.
struct AudienceQuery {
    private struct Branch {
        /// `SELECT <device> AS device FROM … WHERE …`
        let select: String
        /// The column that holds the device id in this branch.
        let device: String
        let args: [any Bindable]
    }

    private let branches: [Branch]
    private var filters: [(sql: String, args: [any Bindable])] = []

    /// Nil when the audience is certainly empty (it names only tags or channels that do not exist).
    /// `tagStore` finds the tags' ids.
    init?(_ audience: Audience, in db: Database, tagStore: TagStore, now: Double) throws {
        let app = audience.appKey
        func tagIDs(_ names: [String]) throws -> [Int64] { try tagStore.ids(db, appKey: app, names: names).values.sorted() }
        let tags = try audience.tags.map(tagIDs)
        let tagAnd = try audience.tagAnd.map(tagIDs)
        let tagNot = try audience.tagNot.map(tagIDs) ?? []
        let channels = try audience.channels.map { try Self.channelIDs(db, app, $0) }
        if tags?.isEmpty == true || channels?.isEmpty == true { return nil }
        if let tagAnd, let wanted = audience.tagAnd, tagAnd.count < wanted.count { return nil }

        var drivenBy = ""
        if let ids = audience.registrationIDs {
            branches = [Branch(select: "SELECT v.id AS device FROM devices v WHERE v.app_key = ? AND v.registration_id IN \(Self.marks(ids.count))",
                               device: "v.id", args: [app] + ids)]
            drivenBy = "registration_id"
        } else if let aliases = audience.aliases {
            branches = [Branch(select: "SELECT v.id AS device FROM devices v WHERE v.app_key = ? AND v.alias IN \(Self.marks(aliases.count))",
                               device: "v.id", args: [app] + aliases)]
            drivenBy = "alias"
        } else if let tags {
            branches = tags.map { Branch(select: "SELECT t.device AS device FROM device_tags t WHERE t.tag = ?", device: "t.device", args: [$0]) }
            drivenBy = "tag"
        } else if let channels {
            branches = channels.map {
                Branch(select: "SELECT s.device AS device FROM subscriptions s WHERE s.channel = ? AND (s.expires_at IS NULL OR s.expires_at > ?)",
                       device: "s.device", args: [$0, now])
            }
            drivenBy = "channel"
        } else if let tagAnd, let smallest = try Self.smallest(db, tagAnd) {
            branches = [Branch(select: "SELECT t.device AS device FROM device_tags t WHERE t.tag = ?", device: "t.device", args: [smallest])]
            drivenBy = "tag_and:\(smallest)"
        } else {
            branches = [Branch(select: "SELECT v.id AS device FROM devices v WHERE v.app_key = ?", device: "v.id", args: [app])]
        }

        if drivenBy != "alias", let aliases = audience.aliases {
            filters.append(("{d} IN (SELECT id FROM devices WHERE app_key = ? AND alias IN \(Self.marks(aliases.count)))", [app] + aliases))
        }
        if drivenBy != "tag", let tags {
            filters.append(("EXISTS (SELECT 1 FROM device_tags WHERE tag IN \(Self.marks(tags.count)) AND device = {d})", tags))
        }
        if drivenBy != "channel", let channels {
            filters.append(("""
                EXISTS (SELECT 1 FROM subscriptions WHERE channel IN \(Self.marks(channels.count)) AND device = {d} \
                AND (expires_at IS NULL OR expires_at > ?))
                """, channels + [now]))
        }
        for tag in tagAnd ?? [] where drivenBy != "tag_and:\(tag)" {
            filters.append(("EXISTS (SELECT 1 FROM device_tags WHERE tag = ? AND device = {d})", [tag]))
        }
        if !tagNot.isEmpty {
            filters.append(("NOT EXISTS (SELECT 1 FROM device_tags WHERE tag IN \(Self.marks(tagNot.count)) AND device = {d})", tagNot))
        }
    }

    /// Registration IDs of up to `limit` devices after device id `after`, with the last device id.
    func page(_ db: Database, after: Int64, limit: Int) throws -> (ids: [String], last: Int64?) {
        let (union, args) = compound(after: after)
        let rows = try db.rows("""
            SELECT c.device, v.registration_id FROM (\(union) ORDER BY 1 LIMIT ?) c
            JOIN devices v ON v.id = c.device ORDER BY c.device
            """, arguments: args + [limit])
        return (rows.compactMap { $0[1].string }, rows.last?[0].int.map(Int64.init))
    }

    /// How many devices the whole audience has.
    func count(_ db: Database) throws -> Int {
        let (union, args) = compound(after: nil)
        return try db.rows("SELECT COUNT(*) FROM (\(union))", arguments: args).first?[0].int ?? 0
    }

    /// The branches joined by UNION, each with every filter, starting after device id `after`.
    private func compound(after: Int64?) -> (String, [any Bindable]) {
        var parts: [String] = []
        var args: [any Bindable] = []
        for branch in branches {
            var sql = branch.select
            args += branch.args
            if let after {
                sql += " AND \(branch.device) > ?"
                args.append(after)
            }
            for filter in filters {
                sql += " AND " + filter.sql.replacingOccurrences(of: "{d}", with: branch.device)
                args += filter.args
            }
            parts.append(sql)
        }
        return (parts.joined(separator: " UNION "), args)
    }

    private static func marks(_ count: Int) -> String {
        "(" + Array(repeating: "?", count: count).joined(separator: ", ") + ")"
    }

    private static func channelIDs(_ db: Database, _ app: String, _ names: [String]) throws -> [Int64] {
        try names.compactMap { try db.value("SELECT id FROM channels WHERE app_key = ? AND name = ?", app, $0).int.map(Int64.init) }
    }

    /// The tag with the fewest devices, the cheapest to drive an AND.
    private static func smallest(_ db: Database, _ tags: [Int64]) throws -> Int64? {
        try tags.min { try db.value("SELECT devices FROM tags WHERE id = ?", $0).int ?? 0 < db.value("SELECT devices FROM tags WHERE id = ?", $1).int ?? 0 }
    }
}
