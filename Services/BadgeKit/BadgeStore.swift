import SQLite

/// The badge service's queries. Every method runs on the `Database` of the caller's transaction;
/// none opens one of its own. SQL strings are constant so the prepared statements are reused.
struct BadgeStore {
    /// A device as this service knows it; `applied` is the value a given push already gave it.
    struct Device {
        let appKey: String
        let badge: Int
        var applied: Int? = nil
    }

    func device(_ db: Database, registrationID: String) throws -> Device? {
        guard let row = try db.row("SELECT app_key, badge FROM devices WHERE registration_id = ?", registrationID) else {
            return nil
        }
        return Device(appKey: row[0].string ?? "", badge: row[1].int ?? 0)
    }

    /// The device with the value `message` gave it, if that push reached it already.
    func device(_ db: Database, registrationID: String, message: Int64) throws -> Device? {
        guard let row = try db.row("""
            SELECT d.app_key, d.badge, a.value FROM devices d
            LEFT JOIN applied a ON a.message = ? AND a.registration_id = d.registration_id
            WHERE d.registration_id = ?
            """, message, registrationID) else { return nil }
        return Device(appKey: row[0].string ?? "", badge: row[1].int ?? 0, applied: row[2].int)
    }

    /// Adds a device, or moves it to `appKey` when registration says it belongs there.
    func learn(_ db: Database, registrationID: String, appKey: String, badge: Int = 0) throws {
        try db.run("""
            INSERT INTO devices (registration_id, app_key, badge) VALUES (?, ?, ?)
            ON CONFLICT (registration_id) DO UPDATE SET app_key = excluded.app_key
            """, registrationID, appKey, badge)
    }

    func setBadge(_ db: Database, registrationID: String, to value: Int) throws {
        try db.run("UPDATE devices SET badge = ? WHERE registration_id = ?", value, registrationID)
    }

    /// Drops everything kept about a device of `appKey` and remembers that it was deleted. Its push
    /// records are found through the app's remembered pushes, one key lookup each.
    func forget(_ db: Database, registrationID: String, appKey: String, now: Double) throws {
        try db.run("DELETE FROM devices WHERE registration_id = ?", registrationID)
        try db.run("DELETE FROM applied WHERE message IN (SELECT id FROM messages WHERE app_key = ?) AND registration_id = ?",
                   appKey, registrationID)
        try db.run("INSERT OR REPLACE INTO forgotten (registration_id, forgotten_at) VALUES (?, ?)", registrationID, now)
    }

    func isForgotten(_ db: Database, registrationID: String) throws -> Bool {
        try db.value("SELECT 1 FROM forgotten WHERE registration_id = ?", registrationID) != .null
    }

    // MARK: pushes

    /// The push `msgID` of `appKey` with the badge it was first applied with, or nil when not remembered.
    func message(_ db: Database, appKey: String, msgID: String) throws -> (id: Int64, badge: String)? {
        guard let row = try db.row("SELECT id, badge FROM messages WHERE app_key = ? AND msg_id = ?", appKey, msgID),
              let id = row[0].int else { return nil }
        return (Int64(id), row[1].string ?? "")
    }

    func insertMessage(_ db: Database, appKey: String, msgID: String, badge: String, now: Double) throws -> Int64 {
        try db.run("INSERT INTO messages (app_key, msg_id, badge, last_applied_at) VALUES (?, ?, ?, ?)",
                   appKey, msgID, badge, now)
        return db.lastInsertRowID
    }

    func touchMessage(_ db: Database, id: Int64, now: Double) throws {
        try db.run("UPDATE messages SET last_applied_at = ? WHERE id = ?", now, id)
    }

    func recordApplied(_ db: Database, message: Int64, registrationID: String, value: Int) throws {
        try db.run("INSERT INTO applied (message, registration_id, value) VALUES (?, ?, ?)", message, registrationID, value)
    }

    // MARK: retention

    /// Deletes up to about `limit` rows older than `cutoff`: deleted-device marks, then the records of the
    /// oldest expired push (a large push takes several calls). Returns how many rows went.
    func prune(_ db: Database, before cutoff: Double, limit: Int) throws -> Int {
        var removed = try db.run("""
            DELETE FROM forgotten WHERE registration_id IN
                (SELECT registration_id FROM forgotten WHERE forgotten_at < ? LIMIT ?)
            """, cutoff, limit)
        guard removed < limit,
              let oldest = try db.value("SELECT id FROM messages WHERE last_applied_at < ? ORDER BY last_applied_at LIMIT 1",
                                        cutoff).int else { return removed }
        let budget = limit - removed
        let records = try db.run("""
            DELETE FROM applied WHERE message = ? AND registration_id IN
                (SELECT registration_id FROM applied WHERE message = ? LIMIT ?)
            """, oldest, oldest, budget)
        removed += records
        if records < budget { removed += try db.run("DELETE FROM messages WHERE id = ?", oldest) }
        return removed
    }
}
