import Foundation

/// A service's database: one connection in WAL mode with durable commits, migrated at open.
/// Every access goes through `read` or `write`; a `write` inside a `write` becomes a savepoint,
/// which is how a group-committed batch lets one request fail alone.
/// Not Sendable: a store belongs to the thread that serves the service.
public final class Store {
    public let path: String
    /// Whether this open made the database: it had no migration applied before.
    public let isNew: Bool
    let db: Database
    private var writeDepth = 0
    /// Per open write level (the transaction, then each savepoint), how to undo the in-memory state
    /// kept alongside it: run newest first when that level rolls back.
    /// What `onTransactionRollback` was given in the open transaction.
    private var transactionUndo: [() -> Void] = []
    private var commitWork: [(Database) throws -> Void] = []
    /// Per open write level, what to run once the outermost transaction has committed.
    private var afterLevels: [[() -> Void]] = []
    /// The journals kept alongside (`keep`), and per open write level each one's mark, level after
    /// level. Held weakly: a journal's owner keeps it, and a journal holds its store, so a strong
    /// hold here would keep both alive for ever (and the database open).
    private var journals: [KeptJournal] = []
    private var journalMarks: [Int] = []
    /// The thread that checkpoints this store's WAL, when one runs: before each transaction this
    /// store takes the last step of a start-over when that thread asks (`WALCheckpointer.finishOnWriter`).
    weak var walCheckpointer: WALCheckpointer?
    /// How many times this store's last step copied every frame left, so the WAL could start over.
    public var walWriterCheckpoints: Int { walCheckpointer?.writerCheckpoints ?? 0 }

    /// Opens the database at `path` and applies `migrations`.
    /// `durable` (default) makes every commit wait for the disk (`synchronous=FULL`).
    public init(path: String, migrations: [Migration], durable: Bool = true) throws {
        self.path = path
        db = try Database(path: path)
        db.setBusyWait(milliseconds: Self.busyWaitMilliseconds)
        turns = path == Self.memoryPath ? nil : WriteTurns.forFile(path)
        if path != Self.memoryPath {
            try db.execute("PRAGMA journal_mode = WAL")
        }
        try db.execute("PRAGMA synchronous = \(durable ? "FULL" : "NORMAL")")
        try db.execute("PRAGMA foreign_keys = ON")
        // A service's working set stays in memory: up to 64 MiB of page cache (SQLite's default is
        // 2 MiB), so a busy batch does not go back to the file for pages.
        try db.execute("PRAGMA cache_size = -65536")
        // Savepoints (one per request of a group-committed batch) keep their undo pages in memory,
        // not in a temporary file written page by page: the replay measured 4 such writes for each
        // write to the WAL.
        try db.execute("PRAGMA temp_store = MEMORY")
        // Checkpoint every 10,000 WAL pages instead of 1,000: a page rewritten by many commits is
        // copied into the database file once per checkpoint, not once per thousand pages.
        try db.execute("PRAGMA wal_autocheckpoint = 10000")
        let applied = try Migrator(migrations).migrate(db)
        isNew = !migrations.isEmpty && applied.count == migrations.count
    }

    /// Makes this connection checkpoint inside a commit only once the WAL holds `frames` frames
    /// (10,000 from the open): for a store whose WAL a `WALCheckpointer` keeps short.
    public func checkpointInsideCommits(pastFrames frames: Int) throws {
        try db.execute("PRAGMA wal_autocheckpoint = \(frames)")
    }

    /// How long a write waits for the file: for its turn among this process's stores of the file,
    /// then for SQLite's lock.
    static let busyWaitMilliseconds = 5000
    /// This process's turns at writing the file (none for a private in-memory database).
    private let turns: WriteTurns?

    /// A private in-memory database (path ":memory:"): no file, so no WAL to checkpoint.
    public var isInMemory: Bool { path == Self.memoryPath }
    static let memoryPath = ":memory:"

    /// Runs `body` in a read transaction.
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        if db.inTransaction { return try body(db) }
        try db.run("BEGIN DEFERRED")
        defer { _ = try? db.run("COMMIT") }
        return try body(db)
    }

    /// Runs `body` in a write transaction: committed (durably) when it returns, rolled back when it
    /// throws, and the first error rethrown. Nested calls run in a savepoint of the outer transaction.
    /// Work given to `beforeCommit` runs just before the outermost commit; undo steps given to
    /// `onTransactionRollback` run when the transaction rolls back.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        if writeDepth > 0 {
            writeDepth += 1
            afterLevels.append([])
            markJournals()
            defer { writeDepth -= 1 }
            do {
                let result = try nested(body)
                let after = afterLevels.removeLast()
                if !after.isEmpty { afterLevels[afterLevels.count - 1] += after }
                journalMarks.removeLast(journals.count)
                return result
            } catch {
                afterLevels.removeLast()
                rollBackJournals()
                throw error
            }
        }
        writeDepth = 1
        transactionUndo = []
        afterLevels = [[]]
        markJournals()
        defer {
            writeDepth = 0
            aLevelFailedAfterWriting = false
            transactionUndo = []
            afterLevels = []
            journalMarks.removeAll(keepingCapacity: true)
        }
        // This process's writers of the file take turns first, so SQLite's lock is free when one
        // asks for it (`WriteTurns`).
        let turn = turns.map { $0.take(timeout: Double(Self.busyWaitMilliseconds) / 1000) } ?? false
        defer { if turn { turns?.give() } }
        walCheckpointer?.finishOnWriter(self)
        try db.run("BEGIN IMMEDIATE")
        do {
            let result = try body(db)
            if aLevelFailedAfterWriting { throw UndoneWithoutSavepoint() }
            for work in commitWork { try work(db) }
            do { try db.run("COMMIT") } catch { failedCommits += 1; throw error }
            for kept in journals { kept.journal?.journalCommitted() }
            let committed = afterLevels.flatMap { $0 }
            afterLevels = []
            committed.forEach { $0() }
            return result
        } catch {
            _ = try? db.run("ROLLBACK")
            transactionUndo.reversed().forEach { $0() }
            rollBackJournals()
            // What ran after a nested write left its rows behind saw those rows: its own failure may
            // be theirs, so the batch runs again with savepoints, and a real failure comes back then.
            if aLevelFailedAfterWriting { throw UndoneWithoutSavepoint() }
            throw error
        }
    }

    /// Runs `body` in a write transaction as `write` does, but its nested writes (a group-committed
    /// batch's requests) open no SQLite savepoint: a savepoint copies every page its request touches
    /// into a statement journal, which cost the tagging worker a tenth of its time. A nested write
    /// that throws before it has changed a row needs nothing undone in the database; one that throws
    /// after has left its rows behind, so then the whole transaction rolls back and `body` runs
    /// again from the start, this time with a savepoint for each nested write. `body` must leave
    /// nothing behind but what it does through the database and this store's undo steps, since it
    /// may run twice.
    @discardableResult
    public func writeBatch<T>(_ body: (Database) throws -> T) throws -> T {
        precondition(writeDepth == 0, "a batch is the outermost write")
        do {
            nestedWritesUseSavepoints = false
            defer { nestedWritesUseSavepoints = true }
            return try write(body)
        } catch is UndoneWithoutSavepoint {
            batchesRunAgain += 1
            return try write(body)
        }
    }

    /// How many batches `writeBatch` rolled back and ran again since the store opened.
    public private(set) var batchesRunAgain = 0

    /// Whether a nested write opens a savepoint (it does, but in `writeBatch`'s first attempt).
    private var nestedWritesUseSavepoints = true
    /// Set when a nested write without a savepoint threw after changing rows: the transaction must
    /// not commit them.
    private var aLevelFailedAfterWriting = false
    private struct UndoneWithoutSavepoint: Error {}

    /// The body of a nested write, in a savepoint or, in a batch's first attempt, watched for rows it
    /// changes before it throws.
    private func nested<T>(_ body: (Database) throws -> T) throws -> T {
        if nestedWritesUseSavepoints { return try db.savepoint(body) }
        let changesBefore = db.totalChanges
        do {
            return try body(db)
        } catch {
            if db.totalChanges != changesBefore { aLevelFailedAfterWriting = true }
            throw error
        }
    }

    /// Runs `work` inside every write transaction just before it commits (a throw rolls the whole
    /// transaction back): for changes kept in memory during a batch and written once, at its end.
    public func beforeCommit(_ work: @escaping (Database) throws -> Void) {
        commitWork.append(work)
    }

    /// How many transactions failed at their commit since the store opened. A commit over attached
    /// databases is atomic in each file but not across them, so after one of these a derived
    /// database may not match this one (`attachDerived`).
    public private(set) var failedCommits = 0

    /// Whether a write (transaction or savepoint) is open.
    public var isWriting: Bool { writeDepth > 0 }

    /// Keeps `journal` alongside every write from now on: rolled back with each level that rolls
    /// back, told when a transaction commits.
    public func keep(_ journal: any RollbackJournal) {
        precondition(writeDepth == 0, "journals are kept between writes")
        journals.append(KeptJournal(journal: journal))
    }

    /// Each journal's mark for the write level opening now.
    private func markJournals() {
        for kept in journals { journalMarks.append(kept.journal?.journalMark ?? 0) }
    }

    /// Undoes each journal to the mark of the innermost open level, and drops that level's marks.
    private func rollBackJournals() {
        let base = journalMarks.count - journals.count
        for (index, kept) in journals.enumerated() { kept.journal?.rollBack(to: journalMarks[base + index]) }
        journalMarks.removeLast(journals.count)
    }

    /// Registers what to do once the current write is committed, such as telling a connection what
    /// the transaction stored: it is dropped if the savepoint or transaction open now rolls back.
    /// Outside a write it runs at once.
    public func afterCommit(_ work: @escaping () -> Void) {
        guard !afterLevels.isEmpty else { return work() }
        afterLevels[afterLevels.count - 1].append(work)
    }

    /// Registers how to undo an in-memory change that stands even when its request is refused, such
    /// as a rate limiter's count, but not when the whole transaction rolls back (a batch run again,
    /// a failed commit): it runs then, and is dropped once the transaction commits.
    public func onTransactionRollback(_ undo: @escaping () -> Void) {
        guard writeDepth > 0 else { return }
        transactionUndo.append(undo)
    }
}

/// A journal as the store holds it: weakly.
private struct KeptJournal {
    weak var journal: (any RollbackJournal)?
}
