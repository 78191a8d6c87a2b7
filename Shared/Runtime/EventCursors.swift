import SQLite

/// The last event a subscriber applied from each publisher, kept in the subscriber's own database.
struct EventCursors {
    func last(_ db: Database, publisher: String) throws -> Int64 {
        Int64(try db.value("SELECT seq FROM event_cursors WHERE publisher = ?", publisher).int ?? 0)
    }

    func set(_ db: Database, publisher: String, sequence: Int64) throws {
        try db.run("""
            INSERT INTO event_cursors (publisher, seq) VALUES (?, ?)
            ON CONFLICT (publisher) DO UPDATE SET seq = excluded.seq
            """, publisher, sequence)
    }

    func publishers(_ db: Database) throws -> [String] {
        try db.rows("SELECT publisher FROM event_cursors ORDER BY publisher").compactMap { $0[0].string }
    }
}
