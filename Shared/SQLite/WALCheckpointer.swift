import CSQLite
import Foundation

/// Copies a WAL-mode database's committed pages back into its file from a thread and a connection of
/// its own, every `interval`. A passive checkpoint never waits for the writer and never holds it up,
/// so when the service's connection comes to its own automatic checkpoint (inside a commit, where
/// every request queued behind the batch waits for it) there are only a few pages left to copy.
/// Without it, that checkpoint copied 10,000 pages at once: the stalls behind the stack's p99.
public final class WALCheckpointer: Sendable {
    private let stopRequested = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts checkpointing the database at `path` (which must exist, in WAL mode) every `interval`.
    public init(path: String, interval: Duration) throws(SQLiteError) {
        let connection = try Database(path: path)
        try connection.execute("PRAGMA synchronous = FULL")
        nonisolated(unsafe) let database = connection   // used by the thread below only, from here on
        let stopRequested = stopRequested, finished = finished
        let wait = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let thread = Thread {
            while stopRequested.wait(timeout: .now() + wait) == .timedOut {
                database.checkpointPassively()
            }
            finished.signal()
        }
        thread.name = "wal-checkpoint"
        thread.start()
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
}
