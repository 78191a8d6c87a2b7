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
/// So once the WAL holds `restartFrames` frames, the pass is followed by a full checkpoint: it
/// waits (in 0.1 ms steps, 10 ms at most) for a moment between two of the writer's transactions,
/// copies the few frames committed since the pass and syncs the file, holding the writer off for
/// that long only; the writer's next transaction then starts the WAL over, itself, so its page cache
/// is kept (a WAL rewound by another connection would make it drop its cache).
public final class WALCheckpointer: Sendable {
    private let stopRequested = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// WAL frames (pages) past which a pass ends with a full checkpoint: 8 MB of 4 KB pages.
    public static let restartFrames = 2048

    /// Starts checkpointing the database at `path` (which must exist, in WAL mode) every `interval`,
    /// fully once the WAL holds `restartFrames` frames.
    public init(path: String, interval: Duration, restartFrames: Int = WALCheckpointer.restartFrames) throws(SQLiteError) {
        let connection = try Database(path: path)
        try connection.execute("PRAGMA synchronous = FULL")
        connection.setBusyWait(milliseconds: 0)
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

    /// One round: a passive checkpoint, then a full one when the WAL holds `restartFrames` frames or
    /// more and the passive one copied all it found. Returns the passive checkpoint's count of frames, and the full one's when it ran.
    @discardableResult
    static func pass(_ database: Database, restartFrames: Int) -> (passive: Int?, full: Int?) {
        guard let passive = database.checkpointPassively() else { return (nil, nil) }
        // Not while a reader keeps frames from being copied: the full checkpoint would hold the
        // writer off waiting for that reader.
        guard passive.frames >= restartFrames, passive.copied == passive.frames else { return (passive.frames, nil) }
        return (passive.frames, database.checkpointFully()?.frames)
    }

    /// Stops the thread after the checkpoint in progress, if any; call once.
    public func stop() {
        stopRequested.signal()
        finished.wait()
    }
}

extension Database {
    /// Copies what it can of the WAL into the database file without waiting on any lock (busy or
    /// not, it simply returns). Returns the WAL's frames and how many of them are now copied.
    @discardableResult
    public func checkpointPassively() -> (frames: Int, copied: Int)? {
        var frames: Int32 = 0
        var copied: Int32 = 0
        guard sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied) == SQLITE_OK else { return nil }
        return (Int(frames), Int(copied))
    }

    /// Waits, through this connection's busy handler, until no other connection writes, then copies
    /// every frame of the WAL into the database file and syncs it; no other connection writes
    /// meanwhile. The WAL itself is left as it is: its writer starts it over on its next write.
    /// Nil when the writer did not pause within the busy handler's wait (the pass was then passive).
    @discardableResult
    public func checkpointFully() -> (frames: Int, copied: Int)? {
        var frames: Int32 = 0
        var copied: Int32 = 0
        guard sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_FULL, &frames, &copied) == SQLITE_OK else { return nil }
        return (Int(frames), Int(copied))
    }
}
