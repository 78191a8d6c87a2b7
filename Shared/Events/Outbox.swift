import Foundation
import Runtime
import SQLite
import Schema
import WireTime

/// The events a service has committed, numbered per publisher without gaps. `append` writes an
/// event in the caller's transaction, so an event exists exactly when its change does; the worker
/// publishes what was appended once the transaction has committed. The next sequence and the
/// events not yet handed out are kept in memory, and a rolled-back write takes its own back
/// (`RollbackJournal`), so appending costs one insert.
public final class Outbox {
    public let publisher: String
    private let store: Store
    private var newest: Int64
    private var unpublished: [(topic: String, event: Data)] = []

    /// The outbox table; a service lists it among its migrations.
    public static let migration = Migration("outbox-1", """
        CREATE TABLE outbox (
            seq INTEGER PRIMARY KEY,
            topic TEXT NOT NULL,
            event BLOB NOT NULL,
            created_at REAL NOT NULL
        );
        """)

    /// The table where a subscriber keeps, per publisher, the last event it applied (in the same
    /// transaction as the event's effect, so each event applies exactly once), and an index to prune
    /// old events by age. Every service lists it after its own migrations.
    public static let catchUpMigration = Migration("events-2", """
        CREATE TABLE event_cursors (
            publisher TEXT PRIMARY KEY,
            seq INTEGER NOT NULL
        );
        CREATE INDEX outbox_by_time ON outbox (created_at);
        """)

    /// The history this outbox numbers in, drawn when its database was made (`epochMigration`): a
    /// database replaced by an empty one starts a new epoch, and its subscribers start over from 0
    /// instead of skipping events whose numbers they have passed.
    public let epoch: String?

    /// The epoch table, and where subscribers keep the epoch each cursor counts in. Every service
    /// lists it (through `WorkerTables`) after the outbox's own migrations.
    public static let epochMigration = Migration("events-3", """
        CREATE TABLE outbox_epoch (epoch TEXT NOT NULL);
        INSERT INTO outbox_epoch (epoch) VALUES (lower(hex(randomblob(8))));
        ALTER TABLE event_cursors ADD COLUMN epoch TEXT;
        """)

    /// `events-4` dropped the index by age, for a prune that walked the events by number and stopped
    /// at the first one still inside the retention; one event stamped in the future (a clock that ran
    /// ahead, then was put right) then kept every later event for as long as the clock had been
    /// ahead. `events-5` makes the index again, and pruning goes by each event's own stamp.
    public static let seqOrderMigration = Migration("events-4", "DROP INDEX IF EXISTS outbox_by_time;")
    public static let ageIndexMigration = Migration("events-5", "CREATE INDEX IF NOT EXISTS outbox_by_time ON outbox (created_at);")

    public init(store: Store, publisher: String) throws {
        self.store = store
        self.publisher = publisher
        (newest, epoch) = try store.read { db in
            (try db.value("SELECT COALESCE(MAX(seq), 0) FROM outbox").int.map(Int64.init) ?? 0,
             try db.value("SELECT epoch FROM outbox_epoch").string)
        }
        store.keep(self)
    }

    /// Records `body` as the next event of this publisher. Call inside `store.write`.
    @discardableResult
    public func append<Body: EventBody>(_ body: Body, in db: Database) throws -> Int64 {
        let sequence = newest + 1
        let now = Date()
        let event = WireCodec.encode(Event(publisher: publisher, sequence: sequence, epoch: epoch,
                                           time: RFC3339.string(from: now, fractional: true), body: body))
        try db.run("INSERT INTO outbox (seq, topic, event, created_at) VALUES (?, ?, ?, ?)",
                   sequence, Body.topic.rawValue, event, now.timeIntervalSince1970)
        newest = sequence
        unpublished.append((topic: Body.topic.rawValue, event: event))
        return sequence
    }

    /// Committed events not yet handed out, in order; marks them handed out. Call between writes:
    /// what a write appended is committed once it returns, and gone if it threw.
    public func takeCommitted() -> [(topic: String, event: Data)] {
        defer { unpublished = [] }
        return unpublished
    }

    /// Deletes up to `limit` of the oldest events older than `cutoff` (Unix seconds), always keeping
    /// the newest, so numbering carries on. Returns how many went; `limit` of them means more may be
    /// left. One bounded transaction at a time keeps the requests served between them waiting briefly.
    @discardableResult
    public func prune(before cutoff: Double, limit: Int = Outbox.pruneLimit) throws -> Int {
        try store.write { db in
            try db.run("""
                DELETE FROM outbox WHERE seq IN (
                    SELECT seq FROM outbox WHERE created_at < ? AND seq < (SELECT MAX(seq) FROM outbox)
                    ORDER BY created_at LIMIT ?)
                """, cutoff, limit)
        }
    }

    /// Events deleted per pruning transaction.
    public static let pruneLimit = 5_000

    /// What a subscriber catching up gets: the first `limit` events after `sequence` of `topics`
    /// (of any topic when nil), and `through`, the sequence of the last event looked at: the last one
    /// returned when the page is full, else this publisher's newest (nil when it has none after
    /// `sequence`). Events of other topics are skipped here, never sent.
    public func events(after sequence: Int64, limit: Int, topics: Set<String>? = nil)
        throws -> (events: [(topic: String, event: Data)], through: Int64?) {
        try store.read { db in
            let wanted = topics.map { Array($0).sorted() }
            let filter = wanted.map { " AND topic IN (\(Array(repeating: "?", count: $0.count).joined(separator: ", ")))" } ?? ""
            let rows = try db.rows("SELECT seq, topic, event FROM outbox WHERE seq > ?\(filter) ORDER BY seq LIMIT ?",
                                   arguments: [sequence] + (wanted ?? []) + [limit])
            let events = rows.map { (topic: $0[1].string ?? "", event: $0[2].data ?? Data()) }
            let newest = rows.count == limit ? rows.last?[0].int : try db.value("SELECT MAX(seq) FROM outbox WHERE seq > ?", sequence).int
            return (events, newest.map(Int64.init))
        }
    }
}

extension Outbox: RollbackJournal {
    /// The events appended in the open transaction are the last of `unpublished` (it is emptied
    /// only between writes), so a mark is its length.
    public var journalMark: Int { unpublished.count }

    public func rollBack(to mark: Int) {
        let dropped = unpublished.count - mark
        guard dropped > 0 else { return }
        newest -= Int64(dropped)
        unpublished.removeLast(dropped)
    }

    public func journalCommitted() {}
}
