import SQLite

/// Where a subscriber is in each publisher's history, kept in the subscriber's own database: the
/// last event it applied and the epoch that number counts in (nil until the publisher told it).
struct EventCursors {
    struct Position: Equatable {
        var sequence: Int64
        var epoch: String?
    }

    func position(_ db: Database, publisher: String) throws -> Position {
        guard let row = try db.row("SELECT seq, epoch FROM event_cursors WHERE publisher = ?", publisher) else {
            return Position(sequence: 0, epoch: nil)
        }
        return Position(sequence: Int64(row[0].int ?? 0), epoch: row[1].string)
    }

    func set(_ db: Database, publisher: String, _ position: Position) throws {
        try db.run("""
            INSERT INTO event_cursors (publisher, seq, epoch) VALUES (?, ?, ?)
            ON CONFLICT (publisher) DO UPDATE SET seq = excluded.seq, epoch = excluded.epoch
            """, publisher, position.sequence, position.epoch)
    }

    func publishers(_ db: Database) throws -> [String] {
        try db.rows("SELECT publisher FROM event_cursors ORDER BY publisher").compactMap { $0[0].string }
    }
}
