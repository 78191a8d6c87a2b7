import Foundation
import JSON
import Schema
import SQLite
import WireTime

/// The server-side scheduled pushes and the msg_id each firing produced. Every method runs on the
/// `Database` of the caller's transaction.
struct PushScheduleStore {
    static let pageSize = 50
    /// Random bytes of a schedule ID (as hex, twice as many characters).
    static let idBytes = 16

    struct Row {
        let id: String
        let appKey: String
        let name: String
        let enabled: Bool
        let trigger: JSONValue
        let timezone: String
        let push: JSONValue
        let nextFireAt: Double?
        let lastError: String?

        var info: ScheduleInfo {
            ScheduleInfo(scheduleID: id, name: name, enabled: enabled, trigger: trigger, timezone: timezone, push: push,
                         nextFireAt: nextFireAt.map { RFC3339.string(from: Date(timeIntervalSince1970: $0)) }, lastError: lastError)
        }
    }

    func insert(_ db: Database, _ row: Row, now: Double) throws {
        try db.run("""
            INSERT INTO push_schedules (id, app_key, name, enabled, trigger, timezone, push, next_fire_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, row.id, row.appKey, row.name, row.enabled, Self.text(row.trigger), row.timezone, Self.text(row.push), row.nextFireAt, now)
    }

    func update(_ db: Database, _ row: Row) throws {
        try db.run("""
            UPDATE push_schedules SET name = ?, enabled = ?, trigger = ?, timezone = ?, push = ?, next_fire_at = ? WHERE id = ?
            """, row.name, row.enabled, Self.text(row.trigger), row.timezone, Self.text(row.push), row.nextFireAt, row.id)
    }

    /// The app's schedule, or nil (another app's is nil too).
    func find(_ db: Database, appKey: String, id: String) throws -> Row? {
        try db.row("SELECT * FROM push_schedules WHERE id = ? AND app_key = ?", id, appKey).map(Self.row)
    }

    func delete(_ db: Database, id: String) throws {
        try db.run("DELETE FROM push_schedule_fires WHERE schedule = ?", id)
        try db.run("DELETE FROM push_schedules WHERE id = ?", id)
    }

    /// How many schedules the app keeps, finished ones included (deleted ones are gone).
    func count(_ db: Database, appKey: String) throws -> Int {
        try db.value("SELECT COUNT(*) FROM push_schedules WHERE app_key = ?", appKey).int ?? 0
    }

    func page(_ db: Database, appKey: String, page: Int) throws -> (rows: [Row], total: Int) {
        let total = try count(db, appKey: appKey)
        let rows = try db.rows("SELECT * FROM push_schedules WHERE app_key = ? ORDER BY created_at, id LIMIT ? OFFSET ?",
                               appKey, Self.pageSize, (page - 1) * Self.pageSize)
        return (rows.map(Self.row), total)
    }

    func msgIDs(_ db: Database, id: String) throws -> [String] {
        try db.rows("SELECT msg_id FROM push_schedule_fires WHERE schedule = ? AND msg_id IS NOT NULL ORDER BY fire_at", id).compactMap { $0[0].string }
    }

    /// Enabled schedules due at `now`, soonest first.
    func due(_ db: Database, now: Double, limit: Int) throws -> [Row] {
        try db.rows("""
            SELECT * FROM push_schedules WHERE enabled = 1 AND next_fire_at IS NOT NULL AND next_fire_at <= ?
            ORDER BY next_fire_at LIMIT ?
            """, now, limit).map(Self.row)
    }

    func nextDue(_ db: Database) throws -> Double? {
        try db.value("SELECT MIN(next_fire_at) FROM push_schedules WHERE enabled = 1 AND next_fire_at IS NOT NULL").double
    }

    /// Records one firing (its msg_id, or the refusal) and moves the schedule to `next`, unless the
    /// schedule changed meanwhile (an update set another time, or it was deleted).
    func fired(_ db: Database, id: String, at fireAt: Double, msgID: String?, error: String?, next: Double?) throws {
        guard try db.value("SELECT next_fire_at FROM push_schedules WHERE id = ?", id).double == fireAt else { return }
        try db.run("INSERT OR IGNORE INTO push_schedule_fires (schedule, fire_at, msg_id) VALUES (?, ?, ?)", id, fireAt, msgID)
        try db.run("UPDATE push_schedules SET next_fire_at = ?, last_error = ? WHERE id = ?", next, error, id)
    }

    private static func row(_ r: SQLite.Row) -> Row {
        Row(id: r["id"].string ?? "", appKey: r["app_key"].string ?? "", name: r["name"].string ?? "", enabled: r["enabled"].int == 1,
            trigger: json(r["trigger"].string), timezone: r["timezone"].string ?? "UTC", push: json(r["push"].string),
            nextFireAt: r["next_fire_at"].double, lastError: r["last_error"].string)
    }

    private static func json(_ text: String?) -> JSONValue {
        (try? JSONTreeDecoder().decode(JSONValue.self, from: Data((text ?? "null").utf8))) ?? .null
    }

    private static func text(_ value: JSONValue) -> String { String(decoding: WireCodec.encode(value), as: UTF8.self) }
}
