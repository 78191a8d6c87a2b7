import Foundation
import SQLite

/// The proofs of the signed requests a service has handled, kept in its own database and written in
/// the batch's transaction, so a captured request is refused a second time even after the gateway
/// that checked it first restarted, or when it comes through another gateway (whose replay cache
/// never saw it).
///
/// A proof is kept by its request's `ts` and its `fingerprint`: a replay is the same request, so it
/// carries the same `ts`, and the key (ts first) makes every insert land at the right edge of one
/// B-tree, where the pages are already in memory. A gateway accepts a proof only within
/// `window` seconds of its `ts`, so a proof is forgotten `window + margin` seconds after its `ts`:
/// by then no gateway takes it anyway. Owned by the worker loop's thread.
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

    public init() {}

    /// Records a proof made at `ts`; false when this service has seen it before. Call inside the
    /// batch's transaction, outside the request's own savepoint, so the proof stays recorded when the
    /// request is refused (a refused request sent again must not succeed later).
    public func record(_ fingerprint: UInt64, ts: Int64, in db: Database) throws -> Bool {
        try db.run("INSERT OR IGNORE INTO proofs (ts, fingerprint) VALUES (?, ?)", ts, Int64(bitPattern: fingerprint)) == 1
    }

    /// Forgets the proofs no gateway accepts any more at `now` (Unix seconds); returns how many.
    @discardableResult
    public func prune(now: Int64, in db: Database) throws -> Int {
        try db.run("DELETE FROM proofs WHERE ts < ?", now - Self.window - Self.margin)
    }
}
