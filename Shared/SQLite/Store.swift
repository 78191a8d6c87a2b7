import Foundation

/// A service's database: one connection in WAL mode with durable commits, migrated at open.
/// Every access goes through `read` or `write`; a `write` inside a `write` becomes a savepoint,
/// which is how a group-committed batch lets one request fail alone.
/// Not Sendable: a store belongs to the thread that serves the service.
public final class Store {
    public let path: String
    private let db: Database
    private var writeDepth = 0

    /// Opens the database at `path` and applies `migrations`.
    /// `durable` (default) makes every commit wait for the disk (`synchronous=FULL`).
    public init(path: String, migrations: [Migration], durable: Bool = true) throws {
        self.path = path
        db = try Database(path: path)
        try db.execute("PRAGMA busy_timeout = 5000")
        if path != ":memory:" {
            try db.execute("PRAGMA journal_mode = WAL")
        }
        try db.execute("PRAGMA synchronous = \(durable ? "FULL" : "NORMAL")")
        try db.execute("PRAGMA foreign_keys = ON")
        // A service's working set stays in memory: up to 64 MiB of page cache (SQLite's default is
        // 2 MiB), so a busy batch does not go back to the file for pages.
        try db.execute("PRAGMA cache_size = -65536")
        // Savepoints (one per request of a group-committed batch) keep their undo pages in memory,
        // not in a temporary file written page by page: the replay measured 4 such writes for each
        // write to the WAL.
        try db.execute("PRAGMA temp_store = MEMORY")
        // Checkpoint every 10,000 WAL pages instead of 1,000: a page rewritten by many commits is
        // copied into the database file once per checkpoint, not once per thousand pages.
        try db.execute("PRAGMA wal_autocheckpoint = 10000")
        try Migrator(migrations).migrate(db)
    }

    /// Runs `body` in a read transaction.
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        if db.inTransaction { return try body(db) }
        try db.run("BEGIN DEFERRED")
        defer { _ = try? db.run("COMMIT") }
        return try body(db)
    }

    /// Runs `body` in a write transaction: committed (durably) when it returns, rolled back when it
    /// throws, and the first error rethrown. Nested calls run in a savepoint of the outer transaction.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        if writeDepth > 0 {
            writeDepth += 1
            defer { writeDepth -= 1 }
            return try db.savepoint(body)
        }
        writeDepth = 1
        defer { writeDepth = 0 }
        try db.run("BEGIN IMMEDIATE")
        do {
            let result = try body(db)
            try db.run("COMMIT")
            return result
        } catch {
            _ = try? db.run("ROLLBACK")
            throw error
        }
    }
}
