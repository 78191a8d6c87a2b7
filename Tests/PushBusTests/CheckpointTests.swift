import Foundation
import SQLite
import Testing

/// The WAL is copied back into the database file by a thread of its own (`WALCheckpointer`), so
/// commits seldom stall on a checkpoint. In WAL mode nothing but a checkpoint writes the main file,
/// so its size shows whether one ran.
@Suite("background checkpoints")
struct CheckpointTests {
    func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func aCheckpointerCopiesCommittedPagesIntoTheDatabaseFile() throws {
        let path = TestPaths.temporaryDirectory("checkpoint") + "/c.sqlite"
        let store = try Store(path: path, migrations: [Migration("blobs", "CREATE TABLE blobs (b BLOB NOT NULL)")])
        let before = size(path)
        for _ in 0..<30 {
            try store.write { db in
                for _ in 0..<10 { try db.run("INSERT INTO blobs (b) VALUES (?)", Data(repeating: 7, count: 4000)) }
            }
        }
        #expect(size(path) == before, "300 pages stay in the WAL below the store's own checkpoint threshold")
        let checkpointer = try WALCheckpointer(path: path, interval: .milliseconds(10))
        #expect(eventually(5, every: 10_000) { size(path) >= before + 300 * 4000 }, "the file grew from \(before) to \(size(path)) bytes")
        checkpointer.stop()
        #expect(try store.read { db in try db.value("SELECT COUNT(*) FROM blobs").int } == 300)
    }

    @Test func aServiceCheckpointsBetweenItsCommitsUnlessToldNotTo() throws {
        func grows(_ extra: [String]) throws -> (before: Int, after: Int) {
            let stack = try TestStack()
            try stack.startGateway()
            try stack.startService("registration", extra: extra)
            let client = try stack.client()
            _ = try client.register()
            let path = "\(stack.dataDirectory)/registration.sqlite"
            let before = size(path)
            for _ in 0..<400 { _ = try client.register() }
            _ = eventually(2, every: 10_000) { size(path) > before }
            return (before, size(path))
        }
        let on = try grows([])
        #expect(on.after >= on.before + 64 * 1024, "400 registrations reached the file: \(on)")
        let off = try grows(["--checkpoint-ms", "0"])
        #expect(off.after == off.before, "with --checkpoint-ms 0 they wait in the WAL for the commit's checkpoint: \(off)")
    }
}
