import Foundation
import SQLite

/// The scheduler's queries. Every method runs on the `Database` of the caller's transaction;
/// none opens one of its own. Times are Unix seconds.
struct LocalStore {
    // MARK: devices

    func appKey(_ db: Database, registrationID: String) throws -> String? {
        try db.value("SELECT app_key FROM devices WHERE registration_id = ?", registrationID).string
    }

    func zone(_ db: Database, registrationID: String) throws -> String? {
        try db.value("SELECT timezone FROM devices WHERE registration_id = ?", registrationID).string
    }

    func addDevice(_ db: Database, registrationID: String, appKey: String) throws {
        try db.run("INSERT OR IGNORE INTO devices (registration_id, app_key) VALUES (?, ?)", registrationID, appKey)
    }

    func setZone(_ db: Database, registrationID: String, appKey: String, zone: String) throws {
        try db.run("""
            INSERT INTO devices (registration_id, app_key, timezone) VALUES (?, ?, ?)
            ON CONFLICT (registration_id) DO UPDATE SET timezone = excluded.timezone
            """, registrationID, appKey, zone)
    }

    /// Deletes everything about a device; returns how many of its pending requests were timed.
    func forget(_ db: Database, registrationID: String) throws -> Int {
        let timed = try db.value("SELECT COUNT(*) FROM pending WHERE registration_id = ? AND next_fire_at IS NOT NULL",
                                 registrationID).int ?? 0
        try db.run("DELETE FROM pending WHERE registration_id = ?", registrationID)
        try db.run("DELETE FROM delivered WHERE registration_id = ?", registrationID)
        try db.run("DELETE FROM devices WHERE registration_id = ?", registrationID)
        return timed
    }

    // MARK: pending

    func pendingCount(_ db: Database, registrationID: String) throws -> Int {
        try db.value("SELECT COUNT(*) FROM pending WHERE registration_id = ?", registrationID).int ?? 0
    }

    /// The row id and fire time of the request with this identifier, if there is one.
    func pendingKey(_ db: Database, registrationID: String, identifier: String) throws -> (id: Int64, nextFireAt: Double?)? {
        guard let row = try db.row("SELECT id, next_fire_at FROM pending WHERE registration_id = ? AND identifier = ?",
                                   registrationID, identifier) else { return nil }
        return (Int64(row[0].int ?? 0), row[1].double)
    }

    /// Inserts a request, or replaces the one with the same identifier; returns its row id.
    func savePending(_ db: Database, replacing existing: Int64?, registrationID: String, identifier: String,
                     kind: String, content: Data, trigger: Data, nextFireAt: Double?, now: Double) throws -> Int64 {
        if let existing {
            try db.run("""
                UPDATE pending SET kind = ?, content = ?, trigger = ?, next_fire_at = ?, inside = NULL, updated_at = ?
                WHERE id = ?
                """, kind, content, trigger, nextFireAt, now, existing)
            return existing
        }
        try db.run("""
            INSERT INTO pending (registration_id, identifier, kind, content, trigger, next_fire_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, registrationID, identifier, kind, content, trigger, nextFireAt, now, now)
        return db.lastInsertRowID
    }

    private static let pendingOfDevice = "SELECT " + PendingRow.columns + """
         FROM pending p JOIN devices d ON d.registration_id = p.registration_id
        WHERE p.registration_id = ? ORDER BY p.next_fire_at IS NULL, p.next_fire_at, p.identifier
        """
    private static let pendingByID = "SELECT " + PendingRow.columns + """
         FROM pending p JOIN devices d ON d.registration_id = p.registration_id WHERE p.id = ?
        """

    /// A device's pending requests, soonest first, regions last.
    func pending(_ db: Database, registrationID: String) throws -> [PendingRow] {
        try db.rows(Self.pendingOfDevice, registrationID).map(PendingRow.init(row:))
    }

    func pending(_ db: Database, id: Int64) throws -> PendingRow? {
        try db.row(Self.pendingByID, id).map(PendingRow.init(row:))
    }

    func deletePending(_ db: Database, id: Int64) throws {
        try db.run("DELETE FROM pending WHERE id = ?", id)
    }

    func reschedule(_ db: Database, id: Int64, nextFireAt: Double) throws {
        try db.run("UPDATE pending SET next_fire_at = ? WHERE id = ?", nextFireAt, id)
    }

    func setInside(_ db: Database, id: Int64, inside: Bool) throws {
        try db.run("UPDATE pending SET inside = ? WHERE id = ?", inside, id)
    }

    /// Up to `limit` timed requests with a row id above `id`, in id order: the timer loads in pages.
    func timers(_ db: Database, after id: Int64, limit: Int) throws -> [FireQueue.Entry] {
        try db.rows("SELECT id, next_fire_at FROM pending WHERE id > ? AND next_fire_at IS NOT NULL ORDER BY id LIMIT ?",
                    id, limit)
            .map { FireQueue.Entry(due: $0[1].double ?? 0, id: Int64($0[0].int ?? 0)) }
    }

    /// The fire time stored for a row, or nil when the row is gone or has none.
    func nextFireAt(_ db: Database, id: Int64) throws -> Double? {
        try db.value("SELECT next_fire_at FROM pending WHERE id = ?", id).double
    }

    // MARK: delivered

    /// Records a delivery (or a miss, `firedAt` nil) in place of any earlier one with the same
    /// identifier, then keeps only the device's newest `keep`.
    func recordDelivered(_ db: Database, _ row: PendingRow, firedAt: Double?, dueAt: Double, keep: Int) throws {
        try db.run("""
            INSERT OR REPLACE INTO delivered (registration_id, identifier, content, trigger, fired_at, due_at, missed)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, row.registrationID, row.identifier, row.content, row.trigger, firedAt, dueAt, firedAt == nil)
        // Counted first, off the (registration_id, identifier) index: the trimming query sorts the
        // device's rows in a temporary tree, which a burst of fires paid once each for nothing.
        let kept = try db.value("SELECT COUNT(*) FROM delivered WHERE registration_id = ?", row.registrationID).int ?? 0
        guard kept > keep else { return }
        try db.run("""
            DELETE FROM delivered WHERE id IN
                (SELECT id FROM delivered WHERE registration_id = ? ORDER BY id DESC LIMIT -1 OFFSET ?)
            """, row.registrationID, keep)
    }

    /// A device's delivered (and missed) notifications, oldest first.
    func delivered(_ db: Database, registrationID: String) throws -> [DeliveredRow] {
        try db.rows("""
            SELECT identifier, content, trigger, fired_at, due_at, missed FROM delivered
            WHERE registration_id = ? ORDER BY id
            """, registrationID).map(DeliveredRow.init(row:))
    }

    func deleteDelivered(_ db: Database, registrationID: String, identifier: String) throws {
        try db.run("DELETE FROM delivered WHERE registration_id = ? AND identifier = ?", registrationID, identifier)
    }
}
