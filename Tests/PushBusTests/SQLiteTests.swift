import Foundation
import SQLite
import Testing

@Suite("SQLite layer")
struct SQLiteTests {
    let path = TestPaths.temporaryDirectory("sqlite") + "/test.sqlite"
    let migrations = [Migration("1", "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")]

    func count(_ store: Store) throws -> Int {
        try store.read { db in try db.value("SELECT COUNT(*) FROM items").int ?? -1 }
    }

    @Test func writeCommitsAndSurvivesReopening() throws {
        do {
            let store = try Store(path: path, migrations: migrations)
            try store.write { db in try db.run("INSERT INTO items (name) VALUES (?)", "a") }
        }
        let reopened = try Store(path: path, migrations: migrations)
        #expect(try count(reopened) == 1)
    }

    /// Text binds from the string's own bytes: an empty string is '' (not NULL), text stops at a
    /// NUL as a C string did, and long, short and non-ASCII text arrive whole.
    @Test func textBindsAsTheCStringDid() throws {
        let store = try Store(path: path, migrations: migrations)
        let long = String(repeating: "é标x", count: 200)
        let values = try store.write { db -> [Value] in
            try db.run("INSERT INTO items (name) VALUES (?)", "")
            try db.run("INSERT INTO items (name) VALUES (?)", "ab\u{0}cd")
            try db.run("INSERT INTO items (name) VALUES (?)", long)
            try db.run("INSERT INTO items (name) VALUES (?)", "short")
            return try db.rows("SELECT name FROM items ORDER BY id").map { $0[0] }
        }
        #expect(values == [.text(""), .text("ab"), .text(long), .text("short")])
        #expect(try store.read { db in try db.value("SELECT COUNT(*) FROM items WHERE name = ?", "ab\u{0}zz").int } == 1,
                "a parameter stops at its NUL too")
    }

    /// A statement run again binds afresh: a parameter the new call leaves out is NULL, not the last
    /// call's value, and a text that outgrows the last call's buffer arrives whole.
    @Test func aStatementRunAgainKeepsNoBindingFromTheLastRun() throws {
        let store = try Store(path: path, migrations: migrations)
        let long = String(repeating: "long text ", count: 100)
        let sql = "SELECT ?1 || '|' || ?2, ?2 IS NULL"
        let rows = try store.read { db in
            [try db.row(sql, "a", "b"), try db.row(sql, "c"), try db.row(sql, long, "d"), try db.row(sql, "e", long)]
        }.map { row in row.map { [$0[0], $0[1]] } }
        #expect(rows == [[.text("a|b"), .integer(0)], [.null, .integer(1)], [.text(long + "|d"), .integer(0)],
                         [.text("e|" + long), .integer(0)]])
    }

    /// Statements are found by where their text lies (`RecentStatements`), but only ever run for the
    /// text they were made from: short texts, whose bytes are copied to one place on the stack each
    /// time, and texts made at run time, whose memory the next one may take, each run their own SQL.
    @Test func aStatementIsFoundByItsTextNotByWhereTheTextLies() throws {
        let store = try Store(path: path, migrations: migrations)
        let values = try store.read { db in
            try (0..<40).map { n in
                let short = try db.value(n % 2 == 0 ? "SELECT 1" : "SELECT 2").int
                let made = try db.value(String(decoding: Array("SELECT \(n % 4) + 100 AS made_at_run_time".utf8), as: UTF8.self)).int
                return [short, made]
            }
        }
        #expect(values == (0..<40).map { [$0 % 2 == 0 ? 1 : 2, $0 % 4 + 100] })
    }

    /// The table of recent statements holds only what the cache holds: once the cache starts over, a
    /// text run again inside a loop over its own rows gets a statement of its own and leaves the
    /// loop's alone, and no more statements stay prepared than the cache's limit (512).
    @Test func recentStatementsAreLetGoWhenTheCacheStartsOver() throws {
        let store = try Store(path: path, migrations: migrations)
        try store.write { db in for n in 1...5 { try db.run("INSERT INTO items (name) VALUES (?)", "n\(n)") } }
        let select = "SELECT id FROM items ORDER BY id -- longer than a small string"
        let visited = try store.read { db -> [Int] in
            var ids: [Int] = []
            try db.forEachRow(select) { row in
                ids.append(row[0].int ?? -1)
                guard ids.count == 1 else { return }
                // Short texts, copied to one place on the stack to be read: they share one slot,
                // and leave the loop's statement in its own while the cache starts over.
                for n in 0..<600 { _ = try db.value("SELECT \(n)") }
                _ = try db.rows(select)
            }
            return ids
        }
        #expect(visited == [1, 2, 3, 4, 5])
        let prepared = try store.read { db in
            for n in 0..<2000 { _ = try db.value("SELECT \(n) AS made_at_run_time") }
            return try db.value("SELECT count(*) FROM sqlite_stmt").int ?? -1
        }
        #expect(prepared <= 512 + 2, "\(prepared) statements prepared")
    }

    @Test func throwingWriteRollsBackAndRethrowsTheFirstError() throws {
        struct Refused: Error {}
        let store = try Store(path: path, migrations: migrations)
        #expect(throws: Refused.self) {
            try store.write { db in
                try db.run("INSERT INTO items (name) VALUES (?)", "a")
                throw Refused()
            }
        }
        #expect(try count(store) == 0)
    }

    @Test func nestedWriteIsASavepoint() throws {
        let store = try Store(path: path, migrations: migrations)
        try store.write { db in
            try db.run("INSERT INTO items (name) VALUES (?)", "kept")
            _ = try? store.write { db in
                try db.run("INSERT INTO items (name) VALUES (?)", "undone")
                try db.run("INSERT INTO items (name) VALUES (?)", "kept")
            }
            try db.run("INSERT INTO items (name) VALUES (?)", "also kept")
        }
        let names = try store.read { db in try db.rows("SELECT name FROM items ORDER BY id").compactMap { $0[0].string } }
        #expect(names == ["kept", "also kept"])
    }

    /// What `onTransactionRollback` is given stands when only its request (a savepoint) is refused,
    /// and is undone when the whole transaction rolls back; a committed one stays.
    @Test func transactionUndoStepsRunOnlyWhenTheTransactionRollsBack() throws {
        struct Refused: Error {}
        let store = try Store(path: path, migrations: migrations)
        var state: [String] = []
        func change(_ name: String) {
            state.append(name)
            store.onTransactionRollback { state.removeAll { $0 == name } }
        }
        change("outside")   // no write open: nothing to undo against
        try store.write { _ in
            change("batch")
            try store.write { _ in change("request 1") }
            _ = try? store.write { _ in
                change("request 2")
                throw Refused()
            }
            #expect(state == ["outside", "batch", "request 1", "request 2"], "a refused request's change stands")
        }
        #expect(throws: Refused.self) {
            try store.write { _ in
                change("a")
                try store.write { _ in change("b") }
                throw Refused()
            }
        }
        #expect(state == ["outside", "batch", "request 1", "request 2"], "a whole rolled-back transaction undoes all")
        try store.write { _ in change("c") }
        #expect(throws: Refused.self) { try store.write { _ in throw Refused() } }
        #expect(state.last == "c", "a committed change is not undone by a later rollback")
    }

    /// A journal is undone to the mark of the level that rolls back, and told of each commit; what
    /// committed stays.
    @Test func journalsFollowTheSavepointOrTransactionTheyWereChangedIn() throws {
        struct Refused: Error {}
        final class Log: RollbackJournal {
            var entries: [String] = []
            var undone: [String] = []
            var commits = 0
            var journalMark: Int { entries.count }
            func rollBack(to mark: Int) {
                while entries.count > mark { undone.append(entries.removeLast()) }
            }
            func journalCommitted() { commits += 1 }
        }
        let store = try Store(path: path, migrations: migrations)
        let log = Log()
        store.keep(log)
        try store.write { _ in
            log.entries.append("batch")
            try store.write { _ in
                log.entries.append("request 1")
                try store.write { _ in log.entries.append("nested, released") }
            }
            _ = try? store.write { _ in
                log.entries.append("request 2")
                try store.write { _ in log.entries.append("nested in a failed request") }
                throw Refused()
            }
            #expect(log.entries == ["batch", "request 1", "nested, released"])
            #expect(log.undone == ["nested in a failed request", "request 2"])
        }
        #expect(log.commits == 1 && log.entries == ["batch", "request 1", "nested, released"])
        #expect(throws: Refused.self) {
            try store.write { _ in
                log.entries.append("a")
                try store.write { _ in log.entries.append("b") }
                throw Refused()
            }
        }
        #expect(log.entries == ["batch", "request 1", "nested, released"], "a whole rolled-back transaction undoes all of its own")
        #expect(log.commits == 1)
    }

    @Test func workBeforeCommitRunsInsideTheTransaction() throws {
        struct Refused: Error {}
        let store = try Store(path: path, migrations: migrations)
        var pending: [String] = []
        var failNext = false
        store.beforeCommit { db in
            for name in pending { try db.run("INSERT INTO items (name) VALUES (?)", name) }
            pending = []
            if failNext { throw Refused() }
        }
        try store.write { _ in pending = ["x", "y"] }
        #expect(try count(store) == 2)
        failNext = true
        #expect(throws: Refused.self) {
            try store.write { db in
                try db.run("INSERT INTO items (name) VALUES (?)", "z")
                pending = ["w"]
            }
        }
        #expect(try count(store) == 2, "a throw before the commit rolls the whole transaction back")
    }

    @Test func migrationsApplyOnceInOrder() throws {
        let db = try Database(path: path)
        let steps = migrations + [Migration("2", "ALTER TABLE items ADD COLUMN size INTEGER")]
        #expect(try Migrator(steps).migrate(db) == ["1", "2"])
        #expect(try Migrator(steps).migrate(db) == [])
        let more = steps + [Migration("3", "CREATE INDEX items_size ON items (size)")]
        #expect(try Migrator(more).migrate(db) == ["3"])
        let recorded = try db.rows("SELECT id FROM schema_migrations ORDER BY id").compactMap { $0[0].string }
        #expect(recorded == ["1", "2", "3"])
    }

    @Test func aFailingMigrationLeavesNoTrace() throws {
        let db = try Database(path: path)
        #expect(throws: SQLiteError.self) {
            try Migrator([Migration("1", "CREATE TABLE t (x); CREATE TABLE t (x)")]).migrate(db)
        }
        #expect(try db.value("SELECT COUNT(*) FROM schema_migrations").int == 0)
        #expect(try db.value("SELECT COUNT(*) FROM sqlite_master WHERE name = 't'").int == 0)
    }

    @Test func storeUsesWALAndFullSync() throws {
        let store = try Store(path: path, migrations: migrations)
        let mode = try store.read { db in try db.value("PRAGMA journal_mode").string }
        let sync = try store.read { db in try db.value("PRAGMA synchronous").int }
        #expect(mode == "wal")
        #expect(sync == 2, "FULL: a commit waits for the disk")
    }

    @Test func valuesRoundTrip() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE v (a, b, c, d, e)")
        let blob = Data([0, 1, 255])
        try db.run("INSERT INTO v VALUES (?, ?, ?, ?, ?)", Value.null, 42, 2.5, "text ✓", blob)
        let row = try #require(try db.row("SELECT * FROM v"))
        #expect(row["a"] == .null)
        #expect(row["b"].int == 42)
        #expect(row["c"].double == 2.5)
        #expect(row["d"].string == "text ✓")
        #expect(row["e"].data == blob)
        #expect(row["missing"] == .null)
    }

    @Test func badSQLThrowsWithTheStatement() throws {
        let db = try Database(path: ":memory:")
        do {
            try db.run("SELEC nonsense")
            Issue.record("expected an error")
        } catch {
            #expect(error.sql == "SELEC nonsense")
        }
    }

    @Test func aFileThatIsNotADatabaseIsNamedAndTakenForDamage() throws {
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: path))
        do {
            _ = try Store(path: path, migrations: migrations)
            Issue.record("expected an error")
        } catch let error as SQLiteError {
            #expect(error.path == path)
            #expect(error.isDamage)
            #expect(error.description.contains("\(path): file is not a database"), "\(error)")
        }
    }
}

/// The prepared-statement cache's key: equal texts are one key, texts that differ only where its
/// hash does not look are still two.
@Suite("statement key")
struct StatementKeyTests {
    @Test func textsAreOneKeyOnlyWhenEqual() throws {
        let store = try Store(path: TestPaths.temporaryDirectory("statement-key") + "/k.sqlite",
                              migrations: [Migration("1", "CREATE TABLE t (a INTEGER, b INTEGER, c INTEGER)")])
        // Same length, same start, middle and end: only the bytes between the samples differ.
        let first = "SELECT    a FROM t WHERE a IS NOT NULL AND 1 = 1 ORDER BY a"
        let second = "SELECT    b FROM t WHERE a IS NOT NULL AND 1 = 1 ORDER BY a"
        #expect(first.utf8.count == second.utf8.count)
        try store.write { db in try db.run("INSERT INTO t VALUES (1, 2, 3)") }
        let values = try store.read { db in
            [try db.value(first), try db.value(second), try db.value(String(first)), try db.value("SELECT c FROM t")]
        }
        #expect(values == [.integer(1), .integer(2), .integer(1), .integer(3)])
    }

    /// U+F900 and U+8C48 are one character to `String ==` (canonically equivalent) and three bytes
    /// each: placed between the hash's samples they hash alike, and only a byte comparison keeps
    /// the two statements apart, as SQLite sees them.
    @Test func twoSpellingsOfOneTextAreTwoStatements() throws {
        let store = try Store(path: TestPaths.temporaryDirectory("statement-key") + "/spellings.sqlite", migrations: [])
        let compatibility = "SELECT '\u{F900}' AS x, 'a long enough text to sample' AS y"
        let unified = "SELECT '\u{8C48}' AS x, 'a long enough text to sample' AS y"
        #expect(compatibility == unified && compatibility.utf8.count == unified.utf8.count)
        let values = try store.read { db in [try db.value(compatibility), try db.value(unified)] }
        #expect(values.map { Array($0.string?.utf8 ?? "".utf8) } == [[0xEF, 0xA4, 0x80], [0xE8, 0xB1, 0x88]])
    }
}
