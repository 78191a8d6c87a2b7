import Foundation
import Runtime
import SQLite

/// Which devices carry each tag, `device_tags (tag, device)`: the index audiences are resolved
/// from. It is derived: every device row keeps its own tag names (`devices.tags`), durably, and
/// this index says the same the other way round. So it lives in a file of its own beside the
/// database (`<database>-audience`), attached to the same connection, whose commits wait for no
/// disk (`Store.attachDerived`). Binding a tag writes one page of it at a random place, and on the
/// durable path those pages were most of what every commit waited for (docs/benchmarks.md).
///
/// Each clean close marks the database and the index with the same new random epoch, and each open
/// clears the index's mark (on disk) before the first write. An open that finds the two marks
/// differing (a crash, a restored backup, a missing file, the first start after the index moved
/// here), or the file damaged (`quick_check`), builds the index again from `devices.tags`; so does
/// the open after a run in which a commit failed (the database may have committed and the index
/// not). A lock file beside it (`<database>-audience.lock`) keeps a second process from checking,
/// removing or building the index while one has it.
final class AudienceIndex {
    static let schema = "audience"

    private let store: Store
    private let path: String
    /// Held from the first look at the index until `close`: nil in memory.
    private let lock: FileLock?
    /// How long this open took to build the index again; nil when it kept the one it found, or
    /// when the database is new (nothing to build).
    let buildSeconds: Double?
    var rebuilt: Bool { buildSeconds != nil }

    /// Attaches the database's index, building it again unless it is the one the database was last
    /// closed with. Throws when another connection has it open.
    init(store: Store) throws {
        self.store = store
        path = store.isInMemory ? ":memory:" : store.path + "-audience"
        lock = store.isInMemory ? nil : try FileLock(path: path + ".lock")
        if try Self.attachMatching(store, path) {
            buildSeconds = nil
        } else {
            let start = Date()
            if !store.isInMemory { try Self.removeFile(path) }
            try store.attachDerived(path: path, as: Self.schema)
            try store.write { db in
                try db.execute(Self.tables)
                try Self.build(db)
            }
            buildSeconds = store.isNew ? nil : Date().timeIntervalSince(start)
        }
        try store.writeSyncingDerived(Self.schema) { db in try db.run("UPDATE audience.mark SET epoch = 0") }
    }

    /// Marks the database and the index as closed together, and releases the index. After it, the
    /// handler serves nothing that reads the index.
    func close() throws {
        defer { lock?.unlock() }
        if store.failedCommits == 0 {
            let epoch = Int64.random(in: 1...Int64.max)
            try store.writeSyncingDerived(Self.schema) { db in
                try db.run("UPDATE audience.mark SET epoch = ?", epoch)
                try db.run("UPDATE audience_index_mark SET epoch = ?", epoch)
            }
        }
        try store.detach(Self.schema)
    }

    private static let tables = """
        CREATE TABLE audience.device_tags (
            tag INTEGER NOT NULL,
            device INTEGER NOT NULL,
            PRIMARY KEY (tag, device)
        ) WITHOUT ROWID;
        CREATE TABLE audience.mark (epoch INTEGER NOT NULL);
        INSERT INTO audience.mark (epoch) VALUES (0);
        """

    /// Attaches the file at `path`; whether it holds the index the database was closed with. A file
    /// that is no index, or a damaged one, does not; one locked by another connection is an error.
    private static func attachMatching(_ store: Store, _ path: String) throws -> Bool {
        do {
            try store.attachDerived(path: path, as: schema)
            let matching = try store.read { db in
                let index = try db.value("SELECT epoch FROM audience.mark").int ?? 0
                let database = try db.value("SELECT epoch FROM audience_index_mark").int ?? 0
                guard index != 0, index == database else { return false }
                return try db.value("PRAGMA audience.quick_check(1)").string == "ok"
            }
            if !matching { try store.detach(schema) }
            return matching
        } catch let error as SQLiteError where error.isBusy {
            throw error
        } catch {
            try? store.detach(schema)
            return false
        }
    }

    /// Every device's tags, bound again: the names in `devices.tags`, split at the separator.
    private static func build(_ db: Database) throws {
        try db.execute("""
            WITH RECURSIVE bound(device, app, name, rest) AS (
                SELECT id, app_key, NULL, tags || char(10) FROM devices WHERE tags != ''
                UNION ALL
                SELECT device, app, substr(rest, 1, instr(rest, char(10)) - 1), substr(rest, instr(rest, char(10)) + 1)
                FROM bound WHERE rest != ''
            )
            INSERT OR IGNORE INTO audience.device_tags (tag, device)
            SELECT tags.id, bound.device FROM bound JOIN tags ON tags.app_key = bound.app AND tags.name = bound.name
            ORDER BY 1, 2
            """)
    }

    private static func removeFile(_ path: String) throws {
        for file in [path, path + "-journal"] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.removeItem(atPath: file)
        }
    }
}
