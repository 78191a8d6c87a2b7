import SQLite

/// The queries on MA events, sessions and the hourly counters behind `stats.events`. Every method runs
/// on the `Database` of the caller's transaction.
struct EventStore {
    func insert(_ db: Database, euid: String, name: String, time: Double, properties: String?, utm: String?) throws {
        try db.run("INSERT INTO events (euid, name, time, properties, utm) VALUES (?, ?, ?, ?, ?)",
                   euid, name, time, properties, utm)
    }

    /// Adds `count` to the app's counter of `name` for the hour starting at `hour` × 3600 s.
    func count(_ db: Database, appKey: String, name: String, hour: Int, by count: Int) throws {
        try db.run("""
            INSERT INTO event_counts (app_key, hour, name, count) VALUES (?, ?, ?, ?)
            ON CONFLICT (app_key, hour, name) DO UPDATE SET count = count + excluded.count
            """, appKey, hour, name, count)
    }

    // MARK: sessions

    struct Session: Equatable {
        var id: Int64
        var start: Double
        var end: Double
        var events: Int
    }

    /// The EUID's sessions that reach into [from, to], oldest first.
    func sessions(_ db: Database, euid: String, from: Double, to: Double) throws -> [Session] {
        try db.rows("""
            SELECT id, started_at, ended_at, events FROM sessions
            WHERE euid = ? AND ended_at >= ? AND started_at <= ? ORDER BY started_at
            """, euid, from, to).map {
            Session(id: Int64($0[0].int ?? 0), start: $0[1].double ?? 0, end: $0[2].double ?? 0, events: $0[3].int ?? 0)
        }
    }

    func insertSession(_ db: Database, euid: String, appKey: String, start: Double, end: Double, events: Int) throws {
        try db.run("INSERT INTO sessions (euid, app_key, started_at, ended_at, events) VALUES (?, ?, ?, ?, ?)",
                   euid, appKey, start, end, events)
    }

    func updateSession(_ db: Database, _ session: Session) throws {
        try db.run("UPDATE sessions SET started_at = ?, ended_at = ?, events = ? WHERE id = ?",
                   session.start, session.end, session.events, session.id)
    }

    func deleteSession(_ db: Database, id: Int64) throws {
        try db.run("DELETE FROM sessions WHERE id = ?", id)
    }

    /// Every session of the EUID, oldest first.
    func allSessions(_ db: Database, euid: String) throws -> [Session] {
        try sessions(db, euid: euid, from: -Double.greatestFiniteMagnitude, to: Double.greatestFiniteMagnitude)
    }

    // MARK: counts by hour

    /// (hour, count) of one counter name in [fromHour, toHour).
    func hourly(_ db: Database, appKey: String, name: String, fromHour: Int, toHour: Int) throws -> [(Int, Int)] {
        try pairs(db.rows("""
            SELECT hour, count FROM event_counts WHERE app_key = ? AND hour >= ? AND hour < ? AND name = ?
            """, appKey, fromHour, toHour, name))
    }

    /// (hour, count) of all the app's own events (names not starting with `$`) in [fromHour, toHour).
    func hourlyCustom(_ db: Database, appKey: String, fromHour: Int, toHour: Int) throws -> [(Int, Int)] {
        try pairs(db.rows("""
            SELECT hour, SUM(count) FROM event_counts
            WHERE app_key = ? AND hour >= ? AND hour < ? AND substr(name, 1, 1) <> '$' GROUP BY hour
            """, appKey, fromHour, toHour))
    }

    /// (hour, sessions started) in [fromHour, toHour).
    func hourlySessions(_ db: Database, appKey: String, fromHour: Int, toHour: Int) throws -> [(Int, Int)] {
        try pairs(db.rows("""
            SELECT CAST(started_at / 3600 AS INTEGER), COUNT(*) FROM sessions
            WHERE app_key = ? AND started_at >= ? AND started_at < ? GROUP BY 1
            """, appKey, Double(fromHour) * 3600, Double(toHour) * 3600))
    }

    private func pairs(_ rows: [Row]) -> [(Int, Int)] {
        rows.map { ($0[0].int ?? 0, $0[1].int ?? 0) }
    }
}
