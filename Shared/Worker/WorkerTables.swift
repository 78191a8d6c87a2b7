import Events
import SQLite

/// The tables the worker loop keeps in every service's database besides the outbox: the proofs it
/// has handled, the devices that were deleted, and the epoch of its events. Each service lists these
/// after its own migrations.
public enum WorkerTables {
    public static let migrations: [Migration] = [ProofLedger.migration, Tombstones.migration, Outbox.epochMigration, ProofLedger.logMigration,
                                                   ProofLedger.batchMigration, Outbox.seqOrderMigration,
                                                   Outbox.ageIndexMigration]
}
