import Events
import Foundation
import SQLite
import Testing
import Worker

/// The ledger remembers a proof by its request's `ts` as long as any gateway could accept it.
@Suite("proof ledger")
struct ProofLedgerTests {
    @Test func aProofIsRefusedTwiceUntilNoGatewayCouldAcceptItAnyMore() throws {
        let db = try Database(path: ":memory:")
        try Migrator([Outbox.migration, Outbox.catchUpMigration] + WorkerTables.migrations).migrate(db)
        let ledger = ProofLedger()
        let ts: Int64 = 1_800_000_000
        do {
            #expect(try ledger.record(42, ts: ts, in: db))
            #expect(try !ledger.record(42, ts: ts, in: db), "the same proof again")
            #expect(try ledger.record(42, ts: ts + 1, in: db), "another request: its ts differs")
            #expect(try ledger.record(.max, ts: ts, in: db), "fingerprints use all 64 bits")
            #expect(try !ledger.record(.max, ts: ts, in: db))

            let stillGood = ts + ProofLedger.window + ProofLedger.margin
            #expect(try ledger.prune(now: stillGood, in: db) == 0, "a gateway could still accept it")
            #expect(try !ledger.record(42, ts: ts, in: db))
            #expect(try ledger.prune(now: stillGood + 1, in: db) == 2, "the two made at ts are forgotten")
            #expect(try !ledger.record(42, ts: ts + 1, in: db), "one second later's stays")
        }
    }
}
