import SQLite

/// Where a subscriber is in each publisher's history, kept in the subscriber's own database: the
/// last event it applied and the epoch that number counts in (nil until the publisher told it).
public struct EventCursors {
    public struct Position: Equatable {
        public var sequence: Int64
        public var epoch: String?

        public init(sequence: Int64, epoch: String?) {
            self.sequence = sequence
            self.epoch = epoch
        }
    }

    public init() {}

    public func position(_ db: Database, publisher: String) throws -> Position {
        guard let row = try db.row("SELECT seq, epoch FROM event_cursors WHERE publisher = ?", publisher) else {
            return Position(sequence: 0, epoch: nil)
        }
        return Position(sequence: Int64(row[0].int ?? 0), epoch: row[1].string)
    }

    public func set(_ db: Database, publisher: String, _ position: Position) throws {
        try db.run("""
            INSERT INTO event_cursors (publisher, seq, epoch) VALUES (?, ?, ?)
            ON CONFLICT (publisher) DO UPDATE SET seq = excluded.seq, epoch = excluded.epoch
            """, publisher, position.sequence, position.epoch)
    }

    public func publishers(_ db: Database) throws -> [String] {
        try db.rows("SELECT publisher FROM event_cursors ORDER BY publisher").compactMap { $0[0].string }
    }
}
