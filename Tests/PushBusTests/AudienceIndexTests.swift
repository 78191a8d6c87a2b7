import Foundation
import JSON
import Runtime
import SQLite
import Testing
@testable import TaggingKit

/// The audience index lives in a file of its own whose commits wait for no disk (`AudienceIndex`):
/// the next open keeps it only when the database was closed cleanly with that very file, and
/// otherwise builds it again from the devices' own tags.
@Suite("audience index")
struct AudienceIndexTests {
    let path = TestPaths.temporaryDirectory("audience-index") + "/tagging.sqlite"
    var indexPath: String { path + "-audience" }

    func add(_ handler: TaggingHandler, _ device: String, _ names: [String]) {
        let answer = reply(handler, "tags.add", ["app_key": "app1".json, "registration_id": device.json, "tags": .array(names.map(\.json))])
        #expect(answer.code == 0)
    }

    /// The devices `handler` resolves for `tag`.
    func audience(_ handler: TaggingHandler, _ tag: String) -> [String] {
        let answer = reply(handler, "audience.resolve", ["app_key": "app1".json, "tag": .array([tag.json])])
        guard case .array(let ids)? = answer["registration_ids"] else { return [] }
        return ids.compactMap(\.string).sorted()
    }

    /// A handler on `path` with d1 and d2 tagged; released without a clean close when `close` is
    /// false, as a crash would leave it.
    func tagTwoDevices(close: Bool) throws {
        let handler = try TaggingHandler(path: path)
        add(handler, "d1", ["gold", "北京"])
        add(handler, "d2", ["gold"])
        if close { try handler.close() }
    }

    @Test func aCleanCloseKeepsTheIndex() throws {
        try tagTwoDevices(close: true)
        let handler = try TaggingHandler(path: path)
        #expect(!handler.audienceIndex.rebuilt)
        #expect(audience(handler, "gold") == ["d1", "d2"])
        #expect(audience(handler, "北京") == ["d1"])
    }

    /// After a crash the index may be behind the database (its commits wait for no disk): here it
    /// lost every row. The next open does not trust it.
    @Test func anIndexLeftByACrashIsBuiltAgain() throws {
        try tagTwoDevices(close: false)
        try Database(path: indexPath).execute("DELETE FROM device_tags")
        let handler = try TaggingHandler(path: path)
        #expect(handler.audienceIndex.rebuilt)
        #expect(audience(handler, "gold") == ["d1", "d2"])
        #expect(audience(handler, "北京") == ["d1"])
    }

    @Test func aTornIndexFileIsBuiltAgain() throws {
        try tagTwoDevices(close: false)
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: indexPath))
        let handler = try TaggingHandler(path: path)
        #expect(handler.audienceIndex.rebuilt)
        #expect(audience(handler, "gold") == ["d1", "d2"])
        add(handler, "d3", ["gold"])
        #expect(audience(handler, "gold") == ["d1", "d2", "d3"])
    }

    /// Damage that spares the marks: the index's first `device_tags` page overwritten after a clean
    /// close. The open checks the file, not only the marks.
    @Test func aDamagedIndexWhoseMarksStillMatchIsBuiltAgain() throws {
        try tagTwoDevices(close: true)
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: indexPath))
        try file.seek(toOffset: 4096)
        try file.write(contentsOf: Data(repeating: 0xFF, count: 4096))
        try file.close()
        let handler = try TaggingHandler(path: path)
        #expect(handler.audienceIndex.rebuilt)
        #expect(audience(handler, "gold") == ["d1", "d2"])
    }

    /// A commit over the database and the index is atomic in each file, not across them: after a
    /// run in which one failed, the next open does not trust the index, clean close or not.
    @Test func aRunWithAFailedCommitLeavesTheIndexToBeBuiltAgain() throws {
        let handler = try TaggingHandler(path: path)
        add(handler, "d1", ["gold"])
        let store = handler.storage.store
        try store.write { db in
            try db.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)")
        }
        #expect(throws: SQLiteError.self, "the deferred reference fails at the commit") {
            try store.write { db in try db.run("INSERT INTO child (parent) VALUES (1)") }
        }
        #expect(store.failedCommits == 1)
        try handler.close()
        let next = try TaggingHandler(path: path)
        #expect(next.audienceIndex.rebuilt)
        #expect(audience(next, "gold") == ["d1"])
    }

    /// One handler at a time: a second on the same database is refused at once, before it looks at
    /// (or removes) the index; after the first closes, the next opens.
    @Test func aSecondHandlerOnTheSameDatabaseIsRefused() throws {
        let first = try TaggingHandler(path: path)
        #expect(throws: FileLock.Failure.self) { _ = try TaggingHandler(path: path) }
        add(first, "d1", ["gold"])
        try first.close()
        #expect(audience(try TaggingHandler(path: path), "gold") == ["d1"])
    }

    /// A database put back from a backup, beside the index of a later clean close: both were closed
    /// cleanly, but not with each other.
    @Test func anIndexNewerThanARestoredDatabaseIsBuiltAgain() throws {
        try tagTwoDevices(close: true)
        let backup = path + ".backup"
        try FileManager.default.copyItem(atPath: path, toPath: backup)
        do {
            let later = try TaggingHandler(path: path)
            let removed = reply(later, "tags.delete", ["app_key": "app1".json, "registration_id": "d2".json, "tags": .array(["gold".json])])
            #expect(removed.code == 0)
            try later.close()
        }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: backup, toPath: path)
        let handler = try TaggingHandler(path: path)
        #expect(handler.audienceIndex.rebuilt)
        #expect(audience(handler, "gold") == ["d1", "d2"], "the restored database still has d2 tagged")
    }

    /// A database written before the index moved out opens with every binding in the new file.
    @Test func theFirstOpenAfterTheMoveBuildsTheIndex() throws {
        let before = Array(TaggingSchema.migrations.prefix { $0.id != "tagging-3" })
        try Store(path: path, migrations: before).write { db in
            try db.execute("""
                INSERT INTO devices (id, registration_id, app_key, tags) VALUES (1, 'd1', 'app1', 'a' || char(10) || 'b'), (2, 'd2', 'app1', 'b');
                INSERT INTO tags (id, app_key, name, devices) VALUES (1, 'app1', 'a', 1), (2, 'app1', 'b', 2);
                INSERT INTO device_tags (tag, device) VALUES (1, 1), (2, 1), (2, 2);
                """)
        }
        let handler = try TaggingHandler(path: path)
        #expect(handler.audienceIndex.rebuilt)
        #expect(audience(handler, "a") == ["d1"])
        #expect(audience(handler, "b") == ["d1", "d2"])
    }
}
