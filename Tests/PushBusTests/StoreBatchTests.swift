import Foundation
import Runtime
import SQLite
import Testing

/// `Store.writeBatch`: a group-committed batch whose requests (nested writes) open no savepoint
/// unless one of them fails after it has changed rows.
@Suite("store batch")
struct StoreBatchTests {
    let path = TestPaths.temporaryDirectory("batch") + "/batch.sqlite"
    let migrations = [Migration("1", "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")]
    struct Refused: Error {}

    func names(_ store: Store) throws -> [String] {
        try store.read { db in try db.rows("SELECT name FROM items ORDER BY name").compactMap { $0[0].string } }
    }

    /// Three requests, the middle one refused after `write` (the rows it changes) and, with it, an
    /// in-memory change undone by the store. Returns how many times the batch ran, the rows kept and
    /// the in-memory state left.
    func batch(refusing write: (Database) throws -> Void) throws -> (runs: Int, names: [String], state: [String]) {
        let store = try Store(path: path, migrations: migrations)
        var runs = 0
        let state = State()
        store.keep(state)
        func request(_ name: String, _ body: (Database) throws -> Void) {
            _ = try? store.write { db in
                state.names.append(name)
                try body(db)
            }
        }
        try store.writeBatch { db in
            runs += 1
            request("a") { db in try db.run("INSERT INTO items (name) VALUES ('a')") }
            request("b") { db in
                try write(db)
                throw Refused()
            }
            request("c") { db in try db.run("INSERT INTO items (name) VALUES ('c')") }
        }
        return (runs, try names(store), state.names)
    }

    /// In-memory state kept beside the store: undone with the write level that changed it.
    final class State: RollbackJournal {
        var names: [String] = []
        var journalMark: Int { names.count }
        func rollBack(to mark: Int) { names.removeLast(names.count - mark) }
        func journalCommitted() {}
    }

    @Test func aRequestRefusedBeforeItWritesIsUndoneWithoutRunningTheBatchAgain() throws {
        let result = try batch(refusing: { _ in })
        #expect(result.runs == 1)
        #expect(result.names == ["a", "c"])
        #expect(result.state == ["a", "c"])
    }

    /// A statement that fails is undone by SQLite itself (here a UNIQUE violation): the request
    /// changed no row, and the batch runs once.
    @Test func aStatementThatFailsChangesNoRowAndTheBatchRunsOnce() throws {
        let result = try batch(refusing: { db in try db.run("INSERT INTO items (name) VALUES ('a')") })
        #expect(result.runs == 1)
        #expect(result.names == ["a", "c"])
    }

    /// Without a savepoint the refused request's rows would commit with the others'; the batch is
    /// rolled back and runs again with savepoints, and only the refused request is undone.
    @Test func aRequestRefusedAfterItWritesSendsTheBatchRoundAgainWithSavepoints() throws {
        let result = try batch(refusing: { db in
            try db.run("INSERT INTO items (name) VALUES ('b')")
            try db.run("UPDATE items SET name = 'a2' WHERE name = 'a'")
        })
        #expect(result.runs == 2)
        #expect(result.names == ["a", "c"])
        #expect(result.state == ["a", "c"])
    }

    /// A rate limiter's count stands when its request is refused, and is taken back when the
    /// whole batch rolls back to run again: the second run counts each call once, not twice.
    @Test func aBatchRunAgainCountsEachRateLimitedCallOnce() throws {
        let store = try Store(path: path, migrations: migrations)
        var limiter = RateLimiter(limit: 3, window: 10)
        var allowed: [Bool] = []
        try store.writeBatch { db in
            allowed = []
            for name in ["a", "b", "c"] {
                _ = try? store.write { db in
                    let ok = limiter.allow("device", now: 100)
                    allowed.append(ok)
                    if ok { store.onTransactionRollback { limiter.takeBack("device", now: 100) } }
                    try db.run("INSERT INTO items (name) VALUES (?)", name)
                    if name == "b" { throw Refused() }
                }
            }
        }
        #expect(allowed == [true, true, true], "the run again is allowed all three calls")
        #expect(try names(store) == ["a", "c"])
        #expect(limiter.allow("device", now: 100) == false, "three calls counted, the refused one included")
    }

    /// A write after the batch opens savepoints again, as `write` always does.
    /// A request refused after it wrote leaves its row behind in the first, savepoint-less run, and a
    /// later statement of the batch fails on that row (here the same name, UNIQUE). That failure is
    /// the refused request's doing: the batch runs again with savepoints and commits.
    @Test func aFailureCausedByARefusedRequestsRowsSendsTheBatchRoundAgain() throws {
        let store = try Store(path: path, migrations: migrations)
        var runs = 0
        try store.writeBatch { db in
            runs += 1
            _ = try? store.write { db in
                try db.run("INSERT INTO items (name) VALUES ('b')")
                throw Refused()
            }
            try db.run("INSERT INTO items (name) VALUES ('b')")
        }
        #expect(runs == 2)
        #expect(try names(store) == ["b"])
        #expect(store.batchesRunAgain == 1)
    }

    /// A batch that fails of itself still fails, after running again.
    @Test func aBatchThatFailsOfItselfStillFailsAfterRunningAgain() throws {
        let store = try Store(path: path, migrations: migrations)
        var runs = 0
        #expect(throws: Refused.self) {
            try store.writeBatch { db in
                runs += 1
                _ = try? store.write { db in
                    try db.run("INSERT INTO items (name) VALUES ('x')")
                    throw Refused()
                }
                throw Refused()
            }
        }
        #expect(runs == 2)
        #expect(try names(store).isEmpty)
    }

    @Test func writesAfterABatchUseSavepointsAgain() throws {
        let store = try Store(path: path, migrations: migrations)
        try store.writeBatch { _ in }
        try store.write { db in
            _ = try? store.write { db in
                try db.run("INSERT INTO items (name) VALUES ('undone')")
                throw Refused()
            }
            try db.run("INSERT INTO items (name) VALUES ('kept')")
        }
        #expect(try names(store) == ["kept"])
    }
}
