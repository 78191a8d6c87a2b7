import CSQLite
import Foundation

/// Copies a WAL-mode database's committed pages back into its file from a thread and a connection of
/// its own, every `interval`. A passive checkpoint never waits for the writer and never holds it up,
/// so when the service's connection comes to its own automatic checkpoint (inside a commit, where
/// every request queued behind the batch waits for it) there are only a few pages left to copy.
/// Without it, that checkpoint copied 10,000 pages at once: the stalls behind the stack's p99.
///
/// A passive pass alone never lets the WAL start over while the service commits without pause: the
/// writer rewinds the WAL only when its transaction begins with every frame copied, and under load
/// a commit always lands while a pass runs. The WAL then grew to the writer's own threshold (10,000
/// pages, 40 MB), where that writer checkpointed inside a commit, every half second at 4,000
/// requests a second, each time a 30–50 ms stall (docs/benchmarks.md, "the tail at half the peak").
/// So once the WAL holds `restartFrames` frames, the pass ends with a full checkpoint, which copies
/// the last frames and syncs the file while it holds the writer off; the writer's next transaction
/// then starts the WAL over, itself, so its page cache is kept (a WAL rewound by another connection
/// would make it drop its cache).
///
/// The writer waits as long as that full step lasts, so the step is kept short: passive passes
/// first catch up with what the writer committed meanwhile until little is left (`catchUpFrames`),
/// and the full checkpoint is then tried without waiting, 0.1 ms apart: a try that finds the writer
/// in a transaction gives up at once (SQLite copies what it can as a passive pass would), where a
/// full checkpoint that waits blocks every new transaction while it waits. At 9,300 requests a
/// second the writer was held up 12.7 ms at the median and 27.7 ms at p99, 17 times a second.
public final class WALCheckpointer: Sendable {
    private let stopRequested = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// WAL frames (pages) past which a pass ends with a full checkpoint: 128 MB of 4 KB pages. The
    /// WAL starts over only after one, so this also bounds how many commits a pass can gather: at
    /// 2,048 frames the WAL started over every 70 ms at the peak, and a longer interval copied no
    /// fewer pages.
    public static let restartFrames = 32768
    /// The threshold past which the service's own connection checkpoints inside a commit, while
    /// this thread runs: far enough past `restartFrames` to be only a last resort.
    public static let writerFrames = 2 * restartFrames
    /// Frames the writer may add during a passive pass for the next step to be the full one.
    static let catchUpFrames = 64
    /// Passive passes at most before the full step, and tries of the full step.
    static let catchUpPasses = 8, fullTries = 50

    /// Starts checkpointing `store`'s database every `interval`. The store's own connection then
    /// checkpoints inside a commit only past `writerFrames`, as a last resort: at its usual 10,000
    /// frames it would copy pages inside a commit long before this thread starts the WAL over.
    public convenience init(store: Store, interval: Duration) throws {
        try store.checkpointInsideCommits(pastFrames: Self.writerFrames)
        try self.init(path: store.path, interval: interval)
    }

    /// Starts checkpointing the database at `path` (which must exist, in WAL mode) every `interval`,
    /// fully once the WAL holds `restartFrames` frames.
    public init(path: String, interval: Duration, restartFrames: Int = WALCheckpointer.restartFrames) throws(SQLiteError) {
        let connection = try Database(path: path)
        try connection.execute("PRAGMA synchronous = FULL")
        connection.neverWaitWhenBusy()   // a full step that finds the writer busy gives up at once
        nonisolated(unsafe) let database = connection   // used by the thread below only, from here on
        let stopRequested = stopRequested, finished = finished
        let wait = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let thread = Thread {
            while stopRequested.wait(timeout: .now() + wait) == .timedOut {
                Self.pass(database, restartFrames: restartFrames)
            }
            finished.signal()
        }
        thread.name = "wal-checkpoint"
        thread.start()
    }

    /// One round: a passive checkpoint; when the WAL holds `restartFrames` frames or more, passive
    /// passes until the writer adds few frames during one, then the full step. Stops short whenever
    /// a pass leaves frames uncopied (a reader still needs them: a full step would only hold the
    /// writer off while it waited for that reader).
    private static func pass(_ database: Database, restartFrames: Int) {
        guard var last = database.checkpoint(SQLITE_CHECKPOINT_PASSIVE),
              last.frames >= restartFrames, last.copied == last.frames else { return }
        for _ in 1..<catchUpPasses {
            guard let next = database.checkpoint(SQLITE_CHECKPOINT_PASSIVE), next.copied == next.frames else { return }
            defer { last = next }
            if next.frames - last.frames <= catchUpFrames { break }
        }
        for _ in 0..<fullTries {
            if database.checkpoint(SQLITE_CHECKPOINT_FULL) != nil { return }
            usleep(100)
        }
    }

    /// Stops the thread after the checkpoint in progress, if any; call once.
    public func stop() {
        stopRequested.signal()
        finished.wait()
    }
}

extension Database {
    /// Copies the WAL into the database file, as `mode` says:
    /// - `SQLITE_CHECKPOINT_PASSIVE` copies what it can without waiting on any lock (busy or not,
    ///   it simply returns);
    /// - `SQLITE_CHECKPOINT_FULL` waits, through this connection's busy handler, until no other
    ///   connection writes, then copies every frame and syncs the file while no other connection
    ///   writes. The WAL itself is left as it is: its writer starts it over on its next write.
    ///
    /// Returns the WAL's frames and how many of them are now copied; nil when SQLite did not
    /// finish (for a full checkpoint: the writer did not pause within the busy handler's wait).
    @discardableResult
    func checkpoint(_ mode: Int32) -> (frames: Int, copied: Int)? {
        var frames: Int32 = 0
        var copied: Int32 = 0
        guard sqlite3_wal_checkpoint_v2(handle, nil, mode, &frames, &copied) == SQLITE_OK else { return nil }
        return (Int(frames), Int(copied))
    }
}
