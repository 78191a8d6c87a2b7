import Foundation
import SQLite
import Testing
import ZeroMQ
@testable import RegistrationKit
@testable import Runtime
@testable import Worker

/// The WAL is copied back into the database file by a thread of its own (`WALCheckpointer`), so
/// commits seldom stall on a checkpoint. In WAL mode nothing but a checkpoint writes the main file,
/// so its size shows whether one ran.
@Suite("background checkpoints")
struct CheckpointTests {
    func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// The frames (4 KB pages and their headers) the WAL of the database at `path` holds on disk.
    func walFrames(_ path: String) -> Int { size(path + "-wal") / (4096 + 24) }

    /// A fresh store, its commits not synced, of a table of blobs; `blob` fills a page.
    func blobStore(_ name: String) throws -> (path: String, store: Store) {
        let path = TestPaths.temporaryDirectory("checkpoint-\(name)") + "/\(name).sqlite"
        return (path, try Store(path: path, migrations: [Migration("blobs", "CREATE TABLE blobs (b BLOB NOT NULL)")], durable: false))
    }
    let blob = Data(repeating: 7, count: 4000)

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

    /// The thread carries its name where an operator looks for it (`top -H`, `perf`, `/proc`):
    /// Foundation's `Thread.name` alone did not reach the kernel, so the thread showed as the
    /// process's main one.
    @Test func theCheckpointerThreadIsNamedForTheKernel() throws {
        let (path, _) = try blobStore("named")
        let checkpointer = try WALCheckpointer(path: path, interval: .milliseconds(10))
        defer { checkpointer.stop() }
        #expect(eventually(5, every: 10_000) { aThreadIsNamed("wal-checkpoint") }, "no thread of this process is named wal-checkpoint")
    }

    /// A writer that never pauses for long (tens of microseconds between commits, where a worker sends
    /// its replies): a passive pass always overlaps a commit, so it never
    /// copies every frame and the writer never starts the WAL over; it grew to the writer's own
    /// threshold of 10,000 frames (40 MB). Past `restartFrames` a full checkpoint copies the rest
    /// between two commits, and the writer's next commit starts the WAL over.
    @Test func aWriterThatNeverPausesHasItsWALStartedOverPastTheThreshold() throws {
        let (path, store) = try blobStore("restart")
        let checkpointer = try WALCheckpointer(path: path, interval: .milliseconds(5), restartFrames: 256)
        for _ in 0..<12_000 {
            try store.write { db in try db.run("INSERT INTO blobs (b) VALUES (?)", blob) }
            usleep(20)   // the moment a worker spends sending a batch's replies: far shorter than a pass
        }
        checkpointer.stop()
        let frames = walFrames(path)
        #expect(frames < 7000, "the WAL reached \(frames) frames, where the writer's own checkpoint would let it reach 10,000")
        #expect(try store.read { db in try db.value("SELECT COUNT(*) FROM blobs").int } == 12_000)
    }

    /// A writer whose batches come back to back, each inside its transaction nearly all the time (the
    /// peak): a full checkpoint from the thread finds it inside one on almost every try, so the WAL
    /// grew on to the writer's own threshold, twice `restartFrames`. The writer takes the last step
    /// itself before a transaction when the thread asks (`finishOnWriter`), so the WAL starts over a
    /// little past `restartFrames` every time.
    @Test func aWriterBusyAlmostWithoutPauseStartsItsWALOverItselfWhenAsked() throws {
        let (path, store) = try blobStore("writer")
        let checkpointer = try WALCheckpointer(store: store, interval: .milliseconds(5), restartFrames: 256)
        for _ in 0..<2_000 {
            try store.write { db in
                try db.run("INSERT INTO blobs (b) VALUES (?)", blob)
                usleep(500)   // the batch's work, inside its transaction
            }
        }
        checkpointer.stop()
        let frames = walFrames(path)
        #expect(checkpointer.writerCheckpoints >= 3, "the writer took the last step \(checkpointer.writerCheckpoints) times")
        // Under 450 frames on a quiet machine, against 618-626 without the step; on a loaded one the
        // thread may be late to ask, so only a bound far past both.
        #expect(frames < 1024, "the WAL reached \(frames) frames")
        #expect(try store.read { db in try db.value("SELECT COUNT(*) FROM blobs").int } == 2_000)
    }

    /// With the threshold raised, a writer adds 12,000 frames to the WAL without checkpointing
    /// inside a commit (the file keeps its size); at the usual 10,000 it copies them into the file.
    @Test func aStoreCheckpointsInsideACommitOnlyPastTheThresholdItIsGiven() throws {
        func fileGrows(raisedTo frames: Int?) throws -> Bool {
            let (path, store) = try blobStore("threshold")
            if let frames { try store.checkpointInsideCommits(pastFrames: frames) }
            let before = size(path)
            for _ in 0..<12 {
                try store.write { db in for _ in 0..<1000 { try db.run("INSERT INTO blobs (b) VALUES (?)", blob) } }
            }
            return size(path) > before
        }
        #expect(try fileGrows(raisedTo: nil), "the store's own threshold, 10,000 frames, checkpoints inside a commit")
        #expect(try !fileGrows(raisedTo: 20_000), "raised to 20,000, no commit checkpoints")
    }

    /// A service whose WAL a thread of its own starts over past `restartFrames` leaves its own
    /// checkpoint, inside a commit, to past `writerFrames`: at 10,000 it would come first.
    @Test func aServiceWithACheckpointerCheckpointsInsideCommitsOnlyAsALastResort() throws {
        let path = TestPaths.temporaryDirectory("checkpoint-service") + "/registration.sqlite"
        let handler = try RegistrationHandler(path: path, secrets: .forTests)
        let worker = ServiceWorker(service: "registration", options: WorkerOptions(), handler: handler,
                                   context: try Context(), logger: Logger(label: "test", level: .critical))
        let store = worker.storage.store
        let threshold = { try store.read { db in try db.value("PRAGMA wal_autocheckpoint").int } }
        #expect(try threshold() == 10_000)
        let checkpointer = try #require(try worker.startCheckpointer())
        defer { checkpointer.stop() }
        #expect(try threshold() == WALCheckpointer.writerFrames)
        #expect(WALCheckpointer.writerFrames > WALCheckpointer.restartFrames)
    }

    /// The real registration worker, its WAL to start over past 200 frames, kept busy by 8 clients at
    /// once: a commit lands during nearly every pass of the checkpointer, so only the last step its
    /// store takes before a transaction starts the WAL over, and `/metrics` counts it. Without that step
    /// the WAL grows to the writer's own checkpoint at 400 frames, and the count stays 0. The WAL
    /// file keeps the largest size it reached.
    @Test func aBusyServiceStartsItsWALOverPastTheFramesItIsGiven() throws {
        let stack = try TestStack()
        try stack.startGateway()
        try stack.startService("registration", extra: ["--wal-restart-frames", "200", "--checkpoint-ms", "5"])
        let failures = Codes()
        atOnce(8, into: failures) { client in
            let connection = try stack.client()
            for n in 0..<200 { _ = try connection.register(deviceID: "wal\(client)-\(n)") }
        }
        #expect(failures.all.isEmpty)
        let frames = walFrames("\(stack.dataDirectory)/registration.sqlite")
        let restarts = #"pushbus_worker_wal_writer_checkpoints_total{service="registration"}"#
        #expect(metricSample(try stack.metricsPage(once: restarts, reaches: 1), restarts) >= 1, "/metrics counts the WAL's start-overs")
        // Under 360 frames on a quiet machine, against 408-418 without the step; on a loaded one the
        // thread may be late to ask, so only a bound far past both.
        #expect(frames < 1024, "the WAL reached \(frames) frames")
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
