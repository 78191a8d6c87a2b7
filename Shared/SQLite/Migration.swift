import Foundation

/// One schema step. Migrations are append-only: never edit or reorder a released one, add a new one.
public struct Migration: Sendable {
    public let id: String
    public let sql: String

    public init(_ id: String, _ sql: String) {
        self.id = id
        self.sql = sql
    }
}

/// Applies migrations in order, each in its own transaction, recording them in `schema_migrations`.
public struct Migrator: Sendable {
    public let migrations: [Migration]

    public init(_ migrations: [Migration]) {
        precondition(Set(migrations.map(\.id)).count == migrations.count, "migration ids are unique")
        self.migrations = migrations
    }

    /// Returns the ids it applied (those not applied before).
    @discardableResult
    public func migrate(_ db: Database) throws -> [String] {
        try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
        let applied = Set(try db.rows("SELECT id FROM schema_migrations").compactMap { $0[0].string })
        var done: [String] = []
        for migration in migrations where !applied.contains(migration.id) {
            try db.execute("BEGIN IMMEDIATE")
            do {
                try db.execute(migration.sql)
                try db.run("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)",
                           migration.id, Double(Int64(Date().timeIntervalSince1970 * 1000)) / 1000)
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
            done.append(migration.id)
        }
        return done
    }
}
