import Events
import Foundation
import SQLite
import Testing
import Worker

/// The ledger remembers a proof by its request's `ts` as long as any gateway could accept it, across
/// a restart of the service, and forgets what a rolled-back batch recorded.
@Suite("proof ledger")
struct ProofLedgerTests {
    static let migrations = [Outbox.migration, Outbox.catchUpMigration] + WorkerTables.migrations
    let path = TestPaths.temporaryDirectory("proof-ledger") + "/ledger.sqlite"
    let ts: Int64 = 1_800_000_000

    /// A ledger on the database at `path`, as a service opens it when it starts.
    struct Opened {
        let store: Store
        let ledger: ProofLedger

        init(_ path: String, migrations: [Migration] = ProofLedgerTests.migrations) throws {
            store = try Store(path: path, migrations: migrations)
            ledger = ProofLedger(store: store)
        }

        /// Records the proof in a transaction of its own.
        func record(_ fingerprint: UInt64, ts: Int64, now: Int64) throws -> Bool {
            try store.write { db in try ledger.record(fingerprint, ts: ts, now: now, in: db) }
        }

        func prune(now: Int64) throws -> Int { try store.write { db in try ledger.prune(now: now, in: db) } }
    }

    @Test func aProofIsRefusedTwiceUntilNoGatewayCouldAcceptItAnyMore() throws {
        let opened = try Opened(path)
        #expect(try opened.record(42, ts: ts, now: ts))
        #expect(try !opened.record(42, ts: ts, now: ts), "the same proof again")
        #expect(try opened.record(42, ts: ts + 1, now: ts), "another request: its ts differs")
        #expect(try opened.record(.max, ts: ts, now: ts), "fingerprints use all 64 bits")
        #expect(try !opened.record(.max, ts: ts, now: ts))

        let stillGood = ts + ProofLedger.window + ProofLedger.margin
        #expect(try opened.prune(now: stillGood) == 0, "a gateway could still accept it")
        #expect(try !opened.record(42, ts: ts, now: stillGood))
        #expect(try opened.prune(now: stillGood + 1) == 2, "the two made at ts are forgotten")
        #expect(try !opened.record(42, ts: ts + 1, now: stillGood + 1), "one second later's stays")
    }

    /// What a service recorded before it stopped (or was killed) is refused by the next one, for as
    /// long as a gateway could accept it.
    @Test func theNextStartRefusesWhatWasRecordedBefore() throws {
        let fingerprints = (0..<1000).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }
        do {
            let first = try Opened(path)
            for (n, fingerprint) in fingerprints.enumerated() { #expect(try first.record(fingerprint, ts: ts + Int64(n % 7), now: ts)) }
        }
        let next = try Opened(path)
        try next.store.read { db in try next.ledger.readBack(now: ts + 10, in: db) }
        let refused = try fingerprints.enumerated().filter { n, fingerprint in try !next.record(fingerprint, ts: ts + Int64(n % 7), now: ts + 10) }
        #expect(refused.count == 1000)
        #expect(try next.record(7, ts: ts, now: ts + 10), "a new proof is taken")

        let window = ProofLedger.window + ProofLedger.margin
        #expect(try Opened(path).record(fingerprints[0], ts: ts, now: ts + window + 1), "past the window nothing is read back")
    }

    @Test func aBatchRolledBackForgetsItsProofs() throws {
        struct Abandoned: Error {}
        let opened = try Opened(path)
        let ts = ts
        #expect(throws: Abandoned.self) {
            try opened.store.write { db in
                _ = try opened.ledger.record(1, ts: ts, now: ts, in: db)
                throw Abandoned()
            }
        }
        #expect(try opened.record(1, ts: ts, now: ts), "sent again after the rollback, it is new")
        #expect(try !opened.record(1, ts: ts, now: ts))
        #expect(try opened.store.read { db in try db.value("SELECT COUNT(*) FROM proof_batches").int } == 1)
    }

    /// A transaction's proofs are one row, written as it commits, and all of them are refused after
    /// a restart; a transaction that records none writes none.
    @Test func aTransactionsProofsAreOneRow() throws {
        let fingerprints = (0..<500).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }
        do {
            let first = try Opened(path)
            let ts = ts
            let taken = try first.store.write { db in
                try fingerprints.enumerated().filter { n, fingerprint in try first.ledger.record(fingerprint, ts: ts + Int64(n % 5), now: ts, in: db) }
            }
            #expect(taken.count == fingerprints.count)
            try first.store.write { db in try db.run("DELETE FROM tombstones") }
            #expect(try first.store.read { db in try db.value("SELECT COUNT(*) FROM proof_batches").int } == 1)
            #expect(try first.store.read { db in try db.value("SELECT ts FROM proof_batches").int } == Int(ts + 4), "keyed by its newest")
        }
        let next = try Opened(path)
        let refused = try fingerprints.enumerated().filter { n, fingerprint in try !next.record(fingerprint, ts: ts + Int64(n % 5), now: ts) }
        #expect(refused.count == fingerprints.count)
    }

    /// A row whose insert fails (here its place already taken) costs its transaction, whose proofs
    /// are forgotten; the next transaction's row goes to the next place.
    @Test func aFailedRowDoesNotBlockTheNextProofs() throws {
        let opened = try Opened(path)
        #expect(try opened.record(1, ts: ts, now: ts))
        try opened.store.write { db in try db.run("INSERT INTO proof_batches (ts, seq, proofs) VALUES (?, ?, x'')", ts, (ts << 20) + 1) }
        #expect(throws: SQLiteError.self) { _ = try opened.record(2, ts: ts, now: ts) }
        #expect(try opened.record(3, ts: ts, now: ts))
        #expect(try opened.record(2, ts: ts, now: ts), "the failed one was not kept as seen")
    }

    /// A damaged row whose seq is the largest there is does not stop the service from starting or
    /// recording: the next place wraps around.
    @Test func aRowAtTheLastSeqDoesNotStopTheLedger() throws {
        try Opened(path).store.write { db in
            try db.run("INSERT INTO proof_batches (ts, seq, proofs) VALUES (?, ?, x'')", ts, Int64.max)
        }
        let opened = try Opened(path)
        #expect(try opened.record(1, ts: ts, now: ts))
        #expect(try opened.record(2, ts: ts, now: ts))
        #expect(try !Opened(path).record(2, ts: ts, now: ts), "both were written")
    }

    /// The rows a version before `proof_batches` wrote, a row a proof, are still read back.
    @Test func proofsLoggedOneARowAreStillReadBack() throws {
        let before = Self.migrations.filter { $0.id != ProofLedger.batchMigration.id }
        try Store(path: path, migrations: before).write { db in
            try db.run("INSERT INTO proof_log (ts, seq, fingerprint) VALUES (?, ?, 5), (?, ?, -1)", ts, ts << 20, ts + 1, (ts << 20) + 1)
        }
        let opened = try Opened(path)
        #expect(try !opened.record(5, ts: ts, now: ts))
        #expect(try !opened.record(.max, ts: ts + 1, now: ts))
        #expect(try opened.record(6, ts: ts, now: ts), "the next row's place follows theirs")
        #expect(try opened.prune(now: ts + 1 + ProofLedger.window + ProofLedger.margin) == 2, "both tables are pruned")
    }

    /// A database from before the log keeps its proofs: they move into it.
    @Test func proofsRecordedBeforeTheLogAreKept() throws {
        let before = Self.migrations.filter { $0.id != ProofLedger.logMigration.id }
        try Store(path: path, migrations: before).write { db in
            try db.run("INSERT INTO proofs (ts, fingerprint) VALUES (?, 5), (?, -1)", ts, ts + 1)
        }
        let opened = try Opened(path)
        #expect(try !opened.record(5, ts: ts, now: ts))
        #expect(try !opened.record(.max, ts: ts + 1, now: ts))
        #expect(try opened.record(6, ts: ts, now: ts), "the next seq follows the moved ones")
    }
}
