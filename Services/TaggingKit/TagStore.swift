import SQLite

/// Tags and which devices carry them. `device_tags (tag, device)` answers "which devices carry this
/// tag" for audiences; each device row keeps its own tag names, so reading or changing a device's tags
/// costs one row, not an index range. Each tag row keeps its device count, so `tags.count` and
/// `tags.list` never scan the index; a tag whose last device leaves is removed.
struct TagStore {
    /// Separates the names in `devices.tags`; no tag may contain it (TagRules' charset).
    static let separator: Character = "\n"

    /// The ids of the app's tags among `names` (those that exist).
    func ids(_ db: Database, appKey: String, names: [String]) throws -> [String: Int64] {
        var found: [String: Int64] = [:]
        for name in names {
            if let id = try db.value("SELECT id FROM tags WHERE app_key = ? AND name = ?", appKey, name).int {
                found[name] = Int64(id)
            }
        }
        return found
    }

    /// The device's tags, sorted as SQLite sorts text (by UTF-8 bytes).
    func names(_ db: Database, device: Int64) throws -> [String] {
        guard let joined = try db.value("SELECT tags FROM devices WHERE id = ?", device).string, !joined.isEmpty else { return [] }
        return joined.split(separator: Self.separator).map(String.init).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Records the device's tags after a change (in any order: `names` sorts them).
    func setNames(_ db: Database, device: Int64, to names: some Sequence<String>) throws {
        try db.run("UPDATE devices SET tags = ? WHERE id = ?", names.joined(separator: String(Self.separator)), device)
    }

    /// Binds `names`, none of them bound to the device yet; returns them.
    func bind(_ db: Database, device: Int64, appKey: String, names: [String]) throws -> [String] {
        for name in names {
            let tag = try id(db, appKey: appKey, name: name)
            if try db.run("INSERT OR IGNORE INTO device_tags (tag, device) VALUES (?, ?)", tag, device) == 1 {
                try db.run("UPDATE tags SET devices = devices + 1 WHERE id = ?", tag)
            }
        }
        return names
    }

    /// The tag's id, creating the tag when the app has none of that name.
    private func id(_ db: Database, appKey: String, name: String) throws -> Int64 {
        if let id = try db.value("SELECT id FROM tags WHERE app_key = ? AND name = ?", appKey, name).int { return Int64(id) }
        try db.run("INSERT INTO tags (app_key, name) VALUES (?, ?)", appKey, name)
        return db.lastInsertRowID
    }

    /// Unbinds `names`, all of them bound to the device; returns them sorted.
    func unbind(_ db: Database, device: Int64, appKey: String, names: [String]) throws -> [String] {
        var removed: [String] = []
        for (name, tag) in try ids(db, appKey: appKey, names: names).sorted(by: { $0.key < $1.key })
        where try db.run("DELETE FROM device_tags WHERE tag = ? AND device = ?", tag, device) == 1 {
            try release(db, tag: tag)
            removed.append(name)
        }
        return removed
    }

    /// Unbinds every tag of the device; returns them.
    func removeAll(_ db: Database, device: Int64, appKey: String) throws -> [String] {
        let removed = try unbind(db, device: device, appKey: appKey, names: try names(db, device: device))
        try setNames(db, device: device, to: [])
        return removed
    }

    /// Every tag of the app with its device count, by name.
    func list(_ db: Database, appKey: String) throws -> [(name: String, devices: Int)] {
        try db.rows("SELECT name, devices FROM tags WHERE app_key = ? ORDER BY name", appKey)
            .map { (name: $0[0].string ?? "", devices: $0[1].int ?? 0) }
    }

    private func release(_ db: Database, tag: Int64) throws {
        try db.run("UPDATE tags SET devices = devices - 1 WHERE id = ?", tag)
        try db.run("DELETE FROM tags WHERE id = ? AND devices <= 0", tag)
    }
}
