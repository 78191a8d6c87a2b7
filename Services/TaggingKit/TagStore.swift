import SQLite

/// Tags and which devices carry them. Each tag row keeps its device count, so `tags.count` and
/// `tags.list` never scan the index; a tag whose last device leaves is removed.
struct TagStore {
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

    /// Binds `names` to the device; returns those that were not bound before.
    func add(_ db: Database, device: Int64, appKey: String, names: [String]) throws -> [String] {
        var added: [String] = []
        for name in names {
            let tag = try id(db, appKey: appKey, name: name)
            if try db.run("INSERT OR IGNORE INTO device_tags (tag, device) VALUES (?, ?)", tag, device) == 1 {
                try db.run("UPDATE tags SET devices = devices + 1 WHERE id = ?", tag)
                added.append(name)
            }
        }
        return added
    }

    /// The tag's id, creating the tag when the app has none of that name.
    private func id(_ db: Database, appKey: String, name: String) throws -> Int64 {
        if let id = try db.value("SELECT id FROM tags WHERE app_key = ? AND name = ?", appKey, name).int { return Int64(id) }
        try db.run("INSERT INTO tags (app_key, name) VALUES (?, ?)", appKey, name)
        return db.lastInsertRowID
    }

    /// Unbinds `names` from the device; returns those that were bound.
    func remove(_ db: Database, device: Int64, appKey: String, names: [String]) throws -> [String] {
        var removed: [String] = []
        for (name, tag) in try ids(db, appKey: appKey, names: names).sorted(by: { $0.key < $1.key })
        where try db.run("DELETE FROM device_tags WHERE tag = ? AND device = ?", tag, device) == 1 {
            try release(db, tag: tag)
            removed.append(name)
        }
        return removed
    }

    /// Unbinds every tag of the device; returns them.
    func removeAll(_ db: Database, device: Int64) throws -> [String] {
        let bound = try db.rows("""
            SELECT t.id, t.name FROM device_tags d JOIN tags t ON t.id = d.tag WHERE d.device = ? ORDER BY t.name
            """, device)
        try db.run("DELETE FROM device_tags WHERE device = ?", device)
        for row in bound { try release(db, tag: Int64(row[0].int ?? 0)) }
        return bound.compactMap { $0[1].string }
    }

    /// The device's tags, sorted.
    func names(_ db: Database, device: Int64) throws -> [String] {
        try db.rows("SELECT t.name FROM device_tags d JOIN tags t ON t.id = d.tag WHERE d.device = ? ORDER BY t.name", device)
            .compactMap { $0[0].string }
    }

    func count(_ db: Database, device: Int64) throws -> Int {
        try db.value("SELECT COUNT(*) FROM device_tags WHERE device = ?", device).int ?? 0
    }

    func isBound(_ db: Database, device: Int64, appKey: String, name: String) throws -> Bool {
        try db.value("""
            SELECT 1 FROM device_tags d JOIN tags t ON t.id = d.tag WHERE d.device = ? AND t.app_key = ? AND t.name = ?
            """, device, appKey, name) != .null
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
