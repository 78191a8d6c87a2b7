import Credentials
import Foundation
import SQLite

/// The proofs of the signed requests a service has handled, kept in its own database and written in
/// the batch's transaction, so a captured request is refused a second time even after the gateway
/// that checked it first restarted, or when it comes through another gateway (whose replay cache
/// never saw it).
///
/// On disk the proofs are a log, `proof_log`, keyed by the request's `ts` and then by the order the
/// service recorded them, so every insert lands at the right edge of the B-tree, on a page already
/// written by the batch before. Which proofs were seen is answered from memory (a `ReplayCache`),
/// filled from the log when the service starts. (Keyed by `ts` and fingerprint, as before, the
/// proofs of one second spread over some fifty pages at random: a third of all the pages the
/// tagging worker's commits wrote, docs/benchmarks.md.)
///
/// A gateway accepts a proof only within `window` seconds of its `ts`, so a proof is forgotten
/// `window + margin` seconds after its `ts`: by then no gateway takes it anyway. Owned by the worker
/// loop's thread; what a rolled-back batch recorded is forgotten in memory too (`RollbackJournal`).
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

    private var seen = ReplayCache(window: window + margin)
    /// The next entry's place in the log; set when the log is read, at the first record.
    private var nextSeq: Int64?
    /// What the open transaction recorded, forgotten from `seen` if it rolls back.
    private var recorded: [(fingerprint: UInt64, ts: Int64)] = []

    /// A ledger on `store`'s `proof_log` (`WorkerTables` migrations). Make it between writes.
    public init(store: Store) {
        store.keep(self)
    }

    /// Records a proof made at `ts`; false when this service has seen it before. `now` is the
    /// service's clock (Unix seconds). Call inside the batch's transaction, outside the request's
    /// own savepoint, so the proof stays recorded when the request is refused (a refused request
    /// sent again must not succeed later).
    public func record(_ fingerprint: UInt64, ts: Int64, now: Int64, in db: Database) throws -> Bool {
        let seq = try nextSeq ?? readBack(now: now, in: db)
        guard seen.insert(fingerprint: fingerprint, ts: ts, now: now) else { return false }
        nextSeq = seq + 1
        do {
            try db.run("INSERT INTO proof_log (ts, seq, fingerprint) VALUES (?, ?, ?)", ts, seq, Int64(bitPattern: fingerprint))
        } catch {
            seen.remove(fingerprint: fingerprint, ts: ts)
            throw error
        }
        recorded.append((fingerprint, ts))
        return true
    }

    /// Forgets the proofs no gateway accepts any more at `now` (Unix seconds); returns how many
    /// left the log. (Memory forgets them by itself, a slice of seconds at a time.)
    @discardableResult
    public func prune(now: Int64, in db: Database) throws -> Int {
        try db.run("DELETE FROM proof_log WHERE ts < ?", now - Self.window - Self.margin)
    }

    /// Reads the log's proofs that a gateway could still accept into memory, once: the worker calls
    /// it before it serves, so no request waits for it (otherwise the first record does). Returns
    /// the next seq.
    @discardableResult
    public func readBack(now: Int64, in db: Database) throws -> Int64 {
        if let nextSeq { return nextSeq }
        var last: Int64 = 0
        try db.forEachRow("SELECT ts, seq, fingerprint FROM proof_log WHERE ts >= ?", now - Self.window - Self.margin) { row in
            guard case .integer(let ts) = row[0], case .integer(let seq) = row[1], case .integer(let fingerprint) = row[2] else { return }
            _ = seen.insert(fingerprint: UInt64(bitPattern: fingerprint), ts: ts, now: now)
            last = max(last, seq)
        }
        // Past every seq read, and past every seq a start in an earlier second can have reached (at
        // fewer than 2^20 records a second), so no (ts, seq) is taken twice, whatever `ts` comes.
        let next = max(last + 1, now << 20)
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
