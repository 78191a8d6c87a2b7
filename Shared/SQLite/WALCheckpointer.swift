import CSQLite
import Foundation
import Threads
import Synchronization

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
/// The writer waits as long as that last step lasts, so the step is kept short: passive passes
/// first catch up with what the writer committed meanwhile until little is left (`catchUpFrames`).
///
/// For a store (`init(store:)`) the writer takes that last step itself, between two transactions:
/// the thread asks (`writerAsked`), and the store's next transaction begins with
/// `finishOnWriter(_:)`, a passive checkpoint on the store's own connection while it holds no
/// transaction, so it copies every frame left. A full checkpoint from this thread found the writer
/// inside a transaction on each of its tries whenever batches came back to back (at the peak), so
/// the WAL never started over there: it grew to the writer's own threshold, 256 MB, every page of it
/// new to the file system.
///
/// With no writer to ask (`init(path:)`), the full checkpoint is tried without waiting, 0.1 ms
/// apart: a try that finds the writer in a transaction gives up at once (SQLite copies what it can as
/// a passive pass would), where a full checkpoint that waits blocks every new transaction while it
/// waits. At 9,300 requests a second the writer was held up 12.7 ms at the median and 27.7 ms at p99,
/// 17 times a second.
public final class WALCheckpointer: Sendable {
    private let stopRequested = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Set by the thread once it has caught up past `restartFrames`, for a writer that takes the last
    /// step itself; taken by `finishOnWriter(_:)`.
    private let writerAsked = Atomic<Bool>(false)
    /// How many times the writer's last step copied every frame left.
    private let writerCheckpointsTaken = Atomic<Int>(0)
    public var writerCheckpoints: Int { writerCheckpointsTaken.load(ordering: .relaxed) }

    /// WAL frames (pages) past which a pass ends with the last step: 128 MB of 4 KB pages. The
    /// WAL starts over only after one, so this also bounds how many commits a pass can gather: at
    /// 2,048 frames the WAL started over every 70 ms at the peak, and a longer interval copied no
    /// fewer pages.
    public static let restartFrames = 32768
    /// The threshold past which the service's own connection checkpoints inside a commit, while
    /// this thread runs: twice the `restartFrames` it is given (`writerFrames(past:)`), far enough
    /// past to be only a last resort.
    public static let writerFrames = writerFrames(past: restartFrames)
    static func writerFrames(past restartFrames: Int) -> Int { 2 * restartFrames }
    /// Frames the writer may add during a passive pass for the next step to be the last one.
    static let catchUpFrames = 64
    /// The thread's name, as `top -H` and `perf` show it (`NamedThread`).
    static let threadName = "wal-checkpoint"
    /// Passive passes at most before the last step, and tries of the full checkpoint as that step.
    static let catchUpPasses = 8, fullTries = 50

    /// Starts checkpointing `store`'s database every `interval`. The store's own connection then
    /// checkpoints inside a commit only past twice `restartFrames` (`writerFrames`), as a last
    /// resort: at its usual 10,000 frames it would copy pages inside a commit long before this thread
    /// starts the WAL over.
    /// Its writer, the store's own thread, takes the last step of each start-over itself, before a
    /// transaction.
    public convenience init(store: Store, interval: Duration, restartFrames: Int = WALCheckpointer.restartFrames) throws {
        precondition((1...Int(Int32.max) / 2).contains(restartFrames), "a WAL starts over past a positive number of frames")
        try store.checkpointInsideCommits(pastFrames: Self.writerFrames(past: restartFrames))
        try self.init(path: store.path, interval: interval, restartFrames: restartFrames, writerFinishes: true)
        store.walCheckpointer = self
    }

    /// Starts checkpointing the database at `path` (which must exist, in WAL mode) every `interval`,
    /// fully, by a full checkpoint from this thread, once the WAL holds `restartFrames` frames.
    public convenience init(path: String, interval: Duration, restartFrames: Int = WALCheckpointer.restartFrames) throws(SQLiteError) {
        try self.init(path: path, interval: interval, restartFrames: restartFrames, writerFinishes: false)
    }

    /// The thread and its connection; the last step of a start-over is the writer's
    /// `finishOnWriter(_:)` when `writerFinishes` (only for a store that calls it: `init(store:)`),
    /// a full checkpoint from this thread otherwise.
    private init(path: String, interval: Duration, restartFrames: Int, writerFinishes: Bool) throws(SQLiteError) {
        let connection = try Database(path: path)
        try connection.execute("PRAGMA synchronous = FULL")
        connection.neverWaitWhenBusy()   // a full step that finds the writer busy gives up at once
        nonisolated(unsafe) let database = connection   // used by the thread below only, from here on
        let stopRequested = stopRequested, finished = finished
        let wait = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        NamedThread.start(Self.threadName) { [self] in
            while stopRequested.wait(timeout: .now() + wait) == .timedOut {
                guard let last = Self.catchUp(database, restartFrames: restartFrames) else { continue }
                if writerFinishes {
                    writerAsked.store(true, ordering: .releasing)
                } else if last.copied == last.frames {
                    // Frames left uncopied mean a reader still needs them: a full checkpoint would
                    // only take the write lock, try after try, while that reader holds on.
                    Self.finishFully(database)
                }
            }
            finished.signal()
        }
    }

    /// One round: a passive checkpoint; when the WAL holds `restartFrames` frames or more, passive
    /// passes until the writer adds few frames during one (or `catchUpPasses` have run: each pass
    /// ends with a sync of the file, and at the peak the writer adds more than a few frames during
    /// any sync). The last pass's figures when the WAL is that long, for the last step to copy what
    /// is left; nil otherwise.
    ///
    /// A pass may leave frames uncopied when a read transaction began on an older mark than the
    /// newest, as one can while a pass moves the marks; that hold is brief, so the catching up goes
    /// on (the writer's own last step, with no transaction open, copies everything).
    private static func catchUp(_ database: Database, restartFrames: Int) -> (frames: Int, copied: Int)? {
        guard var last = database.checkpoint(SQLITE_CHECKPOINT_PASSIVE), last.frames >= restartFrames else { return nil }
        for _ in 1..<catchUpPasses {
            guard let next = database.checkpoint(SQLITE_CHECKPOINT_PASSIVE) else { return nil }
            let added = next.frames - last.frames
            last = next
            if added <= catchUpFrames { break }
        }
        return last
    }

    /// The last step from this thread: a full checkpoint, tried between the writer's transactions.
    private static func finishFully(_ database: Database) {
        for _ in 0..<fullTries {
            if database.checkpoint(SQLITE_CHECKPOINT_FULL) != nil { return }
            usleep(100)
        }
    }

    /// The last step of a start-over, when this thread has asked for it: a passive checkpoint on the
    /// writer's own connection, which copies every frame left since no transaction is open, so the
    /// transaction the writer begins next starts the WAL over. The store calls it just before each
    /// transaction, where it delays no reply to a batch already committed; when nothing was asked it
    /// is a single atomic load. Counted when it copied every frame (a reader on another connection
    /// may still hold some back).
    func finishOnWriter(_ store: Store) {
        guard writerAsked.load(ordering: .acquiring), !store.db.inTransaction else { return }
        writerAsked.store(false, ordering: .relaxed)
        if let done = store.db.checkpoint(SQLITE_CHECKPOINT_PASSIVE), done.copied == done.frames {
            writerCheckpointsTaken.add(1, ordering: .relaxed)
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
