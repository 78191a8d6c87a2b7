import Credentials
import Foundation
import SQLite

/// The proofs of the signed requests a service has handled, kept in its own database and written in
/// the batch's transaction, so a captured request is refused a second time even after the gateway
/// that checked it first restarted, or when it comes through another gateway (whose replay cache
/// never saw it).
///
/// On disk the proofs of one transaction are one row of `proof_batches`, written just before it
/// commits: their `ts` and fingerprints packed in a blob, keyed by the newest `ts` among them and the
/// order the service wrote them, so every row lands at the right edge of the B-tree. (A row a proof,
/// `proof_log`, cost each request an insert of its own: 5 % of the tagging worker's instructions,
/// docs/benchmarks.md; what an older version wrote there is still read.) Which proofs were seen is
/// answered from memory (a `ReplayCache`), filled from the rows when the service starts.
///
/// A gateway accepts a proof only within `window` seconds of its `ts`, so a proof is forgotten
/// `window + margin` seconds after its `ts` (a row once its newest proof is): by then no gateway
/// takes it anyway. Owned by the worker loop's thread; what a rolled-back transaction recorded is
/// forgotten in memory too (`RollbackJournal`), and so is what a failed commit recorded.
public final class ProofLedger {
    /// The gateway's clock window (`Authenticator.window`).
    public static let window: Int64 = 300
    /// Allowance for a service's clock behind a gateway's.
    public static let margin: Int64 = 60

    public static let migration = Migration("proofs-1", """
        CREATE TABLE proofs (
            ts INTEGER NOT NULL,
            fingerprint INTEGER NOT NULL,
            PRIMARY KEY (ts, fingerprint)
        ) WITHOUT ROWID;
        """)

    /// The proofs move into a log appended at its right edge, recorded in their `ts` order.
    public static let logMigration = Migration("proofs-2", """
        CREATE TABLE proof_log (
            ts INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            fingerprint INTEGER NOT NULL,
            PRIMARY KEY (ts, seq)
        ) WITHOUT ROWID;
        INSERT INTO proof_log (ts, seq, fingerprint) SELECT ts, row_number() OVER (ORDER BY ts, fingerprint), fingerprint FROM proofs;
        DROP TABLE proofs;
        """)

    /// The proofs of one transaction, one row (`ProofBatch`).
    public static let batchMigration = Migration("proofs-3", """
        CREATE TABLE proof_batches (
            ts INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            proofs BLOB NOT NULL,
            PRIMARY KEY (ts, seq)
        ) WITHOUT ROWID;
        """)

    private unowned let store: Store
    private var seen = ReplayCache(window: window + margin)
    /// The next row's place; set when the rows are read, at the first record.
    private var nextSeq: Int64?
    /// What the open transaction recorded: written when it commits, forgotten from `seen` if it
    /// rolls back.
    private var recorded: [ProofBatch.Proof] = []

    /// A ledger on `store`'s `proof_batches` (`WorkerTables` migrations). Make it between writes.
    public init(store: Store) {
        self.store = store
        store.keep(self)
        store.beforeCommit { [weak self] db in try self?.writeRecorded(db) }
    }

    /// Records a proof made at `ts`; false when this service has seen it before. `now` is the
    /// service's clock (Unix seconds). Call inside the batch's transaction, outside the request's
    /// own savepoint, so the proof stays recorded when the request is refused (a refused request
    /// sent again must not succeed later); it is written when the transaction commits.
    public func record(_ fingerprint: UInt64, ts: Int64, now: Int64, in db: Database) throws -> Bool {
        precondition(store.isWriting, "a proof is recorded inside the transaction that commits it")
        if nextSeq == nil { try readBack(now: now, in: db) }
        guard seen.insert(fingerprint: fingerprint, ts: ts, now: now) else { return false }
        recorded.append(ProofBatch.Proof(ts: ts, fingerprint: fingerprint))
        return true
    }

    /// Writes what the transaction recorded as one row, just before it commits. Its place is taken
    /// even when the insert fails (the whole transaction then rolls back and forgets the proofs), so
    /// the next transaction's row goes to the next place.
    private func writeRecorded(_ db: Database) throws {
        guard !recorded.isEmpty, let seq = nextSeq else { return }
        nextSeq = seq &+ 1   // wraps only past a seq a damaged row gave; the key is still (ts, seq)
        let batch = ProofBatch(recorded)
        try db.run("INSERT INTO proof_batches (ts, seq, proofs) VALUES (?, ?, ?)", batch.newest, seq, batch.bytes)
    }

    /// Forgets the proofs no gateway accepts any more at `now` (Unix seconds): the rows whose newest
    /// proof is that old; returns how many rows left. (Memory forgets them by itself, a slice of
    /// seconds at a time.)
    @discardableResult
    public func prune(now: Int64, in db: Database) throws -> Int {
        let cutoff = now - Self.window - Self.margin
        return try db.run("DELETE FROM proof_batches WHERE ts < ?", cutoff) + db.run("DELETE FROM proof_log WHERE ts < ?", cutoff)
    }

    /// Reads the proofs that a gateway could still accept into memory, once: the worker calls it
    /// before it serves, so no request waits for it (otherwise the first record does). Returns the
    /// next seq.
    @discardableResult
    public func readBack(now: Int64, in db: Database) throws -> Int64 {
        if let nextSeq { return nextSeq }
        let cutoff = now - Self.window - Self.margin
        var last: Int64 = 0
        func remember(_ proof: ProofBatch.Proof) {
            if proof.ts >= cutoff { _ = seen.insert(fingerprint: proof.fingerprint, ts: proof.ts, now: now) }
        }
        try db.forEachRow("SELECT seq, proofs FROM proof_batches WHERE ts >= ?", cutoff) { row in
            guard case .integer(let seq) = row[0], case .blob(let bytes) = row[1] else { return }
            ProofBatch.proofs(in: bytes).forEach(remember)
            last = max(last, seq)
        }
        // A row a proof, as an older version wrote them.
        try db.forEachRow("SELECT ts, seq, fingerprint FROM proof_log WHERE ts >= ?", cutoff) { row in
            guard case .integer(let ts) = row[0], case .integer(let seq) = row[1], case .integer(let fingerprint) = row[2] else { return }
            remember(ProofBatch.Proof(ts: ts, fingerprint: UInt64(bitPattern: fingerprint)))
            last = max(last, seq)
        }
        // Past every seq read, and past every seq a start in an earlier second can have reached (at
        // fewer than 2^20 rows a second), so no (ts, seq) is taken twice, whatever `ts` comes.
        let next = max(last &+ 1, now << 20)
        nextSeq = next
        return next
    }
}

extension ProofLedger: RollbackJournal {
    public var journalMark: Int { recorded.count }

    public func rollBack(to mark: Int) {
        while recorded.count > mark {
            let proof = recorded.removeLast()
            seen.remove(fingerprint: proof.fingerprint, ts: proof.ts)
        }
    }

    public func journalCommitted() { recorded.removeAll(keepingCapacity: true) }
}
