import Foundation
import SQLite

/// The proofs of the signed requests a service has handled, kept in its own database and written in
/// the batch's transaction, so a captured request is refused a second time even after the gateway
/// that checked it first restarted, or when it comes through another gateway (whose replay cache
/// never saw it). Each proof is kept by its `fingerprint` for at least `retention` seconds, longer
/// than the gateway's clock window lets it be accepted (±300 s around its `ts`).
///
/// Two tables take turns: proofs go into the current one, and both are looked in. Once the current
/// one is `retention` old, the other (older still) is emptied in one statement and becomes current,
/// so forgetting old proofs costs no index and no scan. Owned by the worker loop's thread.
public final class ProofLedger {
    /// Seconds a proof is remembered at least (at most twice as long): the 600 s a proof can stay
    /// within the gateway's window after it was first accepted, and a margin for clocks that differ.
    public static let retention: Double = 900

    public static let migration = Migration("proofs-1", """
        CREATE TABLE proofs_0 (fingerprint INTEGER PRIMARY KEY);
        CREATE TABLE proofs_1 (fingerprint INTEGER PRIMARY KEY);
        CREATE TABLE proof_turns (current INTEGER NOT NULL, started_at REAL NOT NULL);
        INSERT INTO proof_turns (current, started_at) VALUES (0, 0);
        """)

    private let store: Store
    private var current = 0
    private var startedAt: Double = 0
    /// Whether `current` and `startedAt` mirror the table (read once, and again after a rollback).
    private var loaded = false

    public init(store: Store) { self.store = store }

    /// Records a proof; false when this service has seen it before. Call inside the batch's
    /// transaction, outside the request's own savepoint, so the proof stays recorded when the request
    /// is refused (a refused request sent again must not succeed later).
    public func record(_ fingerprint: UInt64, in db: Database, now: Double) throws -> Bool {
        try turnIfDue(db, now: now)
        let key = Int64(bitPattern: fingerprint)
        let other = 1 - current
        guard try db.value("SELECT 1 FROM proofs_\(other) WHERE fingerprint = ?", key) == .null else { return false }
        return try db.run("INSERT OR IGNORE INTO proofs_\(current) (fingerprint) VALUES (?)", key) == 1
    }

    private func turnIfDue(_ db: Database, now: Double) throws {
        if !loaded, let row = try db.row("SELECT current, started_at FROM proof_turns") {
            current = row[0].int ?? 0
            startedAt = row[1].double ?? 0
            loaded = true
        }
        guard now - startedAt >= Self.retention else { return }
        let next = 1 - current
        try db.run("DELETE FROM proofs_\(next)")
        try db.run("UPDATE proof_turns SET current = ?, started_at = ?", next, now)
        current = next
        startedAt = now
        store.onRollback { [weak self] in self?.loaded = false }
    }
}
