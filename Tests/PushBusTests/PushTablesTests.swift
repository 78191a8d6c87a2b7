import Foundation
import SQLite
import Testing
import Worker
@testable import PushKit

/// The push service's tables: what the move to integer keys (push-4) keeps, the lease that hands
/// each due delivery to one sender, and the report to analytics found by index.
@Suite("Push tables")
struct PushTablesTests {
    static func openStore(_ path: String, through last: String? = nil) throws -> Store {
        var own = PushSchema.migrations
        if let last, let end = own.firstIndex(where: { $0.id == last }) { own = Array(own[...end]) }
        return try Store(path: path, migrations: ServiceStorage.migrations(own))
    }

    static func addMessage(_ db: Database, id: Int64, state: String = "sending") throws {
        try db.run("INSERT INTO messages (id, msg_id, app_key, plan, state, created_at) VALUES (?, ?, 'app', '{}', ?, 0)", id, "m\(id)", state)
    }

    /// A page of `count` devices r0, r1 … of message 1, device n due at `due(n)`.
    static func page(_ count: Int, due: (Int) -> Double) -> [(registrationID: String, token: String, production: Bool, badge: Int?, due: Double)] {
        (0..<count).map { n in (registrationID: "r\(n)", token: "t\(n)", production: false, badge: Int?.none, due: due(n)) }
    }

    @Test("push-4 keeps every delivery with its state, and a device stays one delivery per message")
    func migrationKeepsDeliveries() throws {
        let path = TestPaths.temporaryDirectory("push-deliveries") + "/push.sqlite"
        do {
            let old = try Self.openStore(path, through: "push-3")
            try old.write { db in
                try Self.addMessage(db, id: 7)
                let rows: [(String, Int, Int)] = [("r1", 0, 0), ("r2", 1, 0), ("r3", 0, 2), ("r4", 0, 1)]
                for (id, status, leased) in rows {
                    try db.run("INSERT INTO deliveries (message, registration_id, token, production, status, due, leased) VALUES (7, ?, 'tok', 0, ?, 5, ?)",
                               id, status, leased)
                }
            }
        }
        let store = try Self.openStore(path)
        let kept = try store.read { db in
            try db.rows("SELECT registration_id, status, leased FROM deliveries ORDER BY registration_id").map {
                "\($0[0].string ?? "?"):\($0[1].int ?? -1):\($0[2].int ?? -1)"
            }
        }
        #expect(kept == ["r1:0:0", "r2:1:0", "r3:3:0", "r4:0:1"], "the one parked by a withdrawal ends as withdrawn (push-7)")
        let again = try store.write { db in
            try db.run("INSERT OR IGNORE INTO deliveries (message, registration_id, token, production, due) VALUES (7, 'r1', 'tok', 0, 5)")
        }
        #expect(again == 0, "the (message, registration_id) pair is still unique")

        // The lease left by the process that wrote the old table is released as at any start;
        // the parked (withdrawn) one stays parked, the sent one is not sent again.
        let fanout = FanoutStore()
        try store.write { db in try fanout.releaseLeases(db) }
        let leased = try store.write { db in try fanout.lease(db, now: 10, limit: 10).deliveries }
        #expect(Set(leased.map(\.registrationID)) == ["r1", "r4"])
    }

    @Test("a lease hands each due delivery once, oldest due first, and none before it is due")
    func leaseHandsEachOnce() throws {
        let store = try Self.openStore(TestPaths.temporaryDirectory("push-lease") + "/push.sqlite")
        let fanout = FanoutStore()
        try store.write { db in
            try Self.addMessage(db, id: 1)
            let page = Self.page(5) { Double(100 - $0) }
            #expect(try fanout.commitPage(db, message: 1, deliveries: page, looked: 5, nextCursor: nil, total: 5) == 5)
            #expect(try fanout.commitPage(db, message: 1, deliveries: page, looked: 5, nextCursor: nil, total: 5) == 0, "a page redone adds nothing")
        }
        #expect(try store.read { db in try fanout.isBacklogFull(db, appKey: "app", now: 200, limit: 5) })
        #expect(try store.read { db in try !fanout.isBacklogFull(db, appKey: "app", now: 98, limit: 5) }, "rows not due yet are not a backlog")
        let first = try store.write { db in try fanout.lease(db, now: 98, limit: 2).deliveries }
        #expect(Set(first.map(\.registrationID)) == ["r4", "r3"], "the two due first")
        let second = try store.write { db in try fanout.lease(db, now: 98, limit: 10).deliveries }
        #expect(second.map(\.registrationID) == ["r2"], "leased ones are not handed again; later ones are not due")
        let rest = try store.write { db in try fanout.lease(db, now: 200, limit: 10).deliveries }
        #expect(Set(rest.map(\.registrationID)) == ["r1", "r0"])
        #expect(Set((first + second + rest).map(\.id)).count == 5, "each delivery has its own id")

        try store.write { db in
            try fanout.sent(db, ids: [first[0].id], at: 100)
            try fanout.failed(db, first[1], reason: "BadDeviceToken", at: 100)
            try fanout.unlease(db, second[0], due: 150)
            try fanout.tally(db, message: 1, sent: 1, failed: 1)
        }
        // Due and unsent now: r2 alone (r4 and r3 answered, r1 and r0 with a sender).
        #expect(try store.read { db in try fanout.isBacklogFull(db, appKey: "app", now: 200, limit: 1) })
        #expect(try store.read { db in try !fanout.isBacklogFull(db, appKey: "app", now: 200, limit: 2) }, "leased and answered rows are not a backlog")
        try store.write { db in try fanout.releaseLeases(db) }
        let again = try store.write { db in try fanout.lease(db, now: 200, limit: 10).deliveries }
        #expect(Set(again.map(\.registrationID)) == ["r2", "r1", "r0"], "after a restart the unanswered ones are due again, the answered ones not")
        #expect(try store.read { db in try fanout.nextDue(db) } == nil)
    }

    @Test("notifications waiting for a retry later do not hold back another message's pages")
    func retriesAreNotABacklog() throws {
        let store = try Self.openStore(TestPaths.temporaryDirectory("push-backlog") + "/push.sqlite")
        let fanout = FanoutStore()
        try store.write { db in
            try Self.addMessage(db, id: 1)
            try fanout.commitPage(db, message: 1, deliveries: Self.page(10) { _ in 100 }, looked: 10, nextCursor: nil, total: 10)
        }
        #expect(try store.read { db in try fanout.isBacklogFull(db, appKey: "app", now: 100, limit: 10) })
        let leased = try store.write { db in try fanout.lease(db, now: 100, limit: 10).deliveries }
        // APNs throttles the app: every one of them is to be tried again in an hour.
        try store.write { db in for delivery in leased { try fanout.retry(db, delivery, due: 3700) } }
        #expect(try store.read { db in try !fanout.isBacklogFull(db, appKey: "app", now: 101, limit: 10) })
        #expect(try store.read { db in try fanout.isBacklogFull(db, appKey: "app", now: 3700, limit: 10) }, "due again, they count again")
    }

    @Test("what is still to tell analytics is found by index, not by reading every message")
    func unreportedByIndex() throws {
        let store = try Self.openStore(TestPaths.temporaryDirectory("push-report") + "/push.sqlite")
        let plans = try store.read { db in
            try MessageStore.unreportedQueries.map { try db.rows("EXPLAIN QUERY PLAN " + $0, 200).compactMap { $0[3].string } }
        }
        #expect(plans[0].contains { $0.contains("USING INDEX messages_unreported") }, "\(plans[0])")
        #expect(plans[1].contains { $0.contains("USING INDEX failures_unreported") }, "\(plans[1])")
        for plan in plans {
            #expect(!plan.contains { $0.hasPrefix("SCAN messages") && !$0.contains("INDEX") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "the LIMIT cuts the walk short only without a temporary tree: \(plan)")
        }

        let messages = MessageStore()
        try store.write { db in
            for id in Int64(1)...3 { try Self.addMessage(db, id: id) }
            try db.run("UPDATE messages SET sent = 2 WHERE id = 2")
            try db.run("INSERT INTO failures (message, reason, count) VALUES (3, 'BadDeviceToken', 1)")
        }
        let told = try store.write { db in try messages.takeUnreported(db, limit: 10) }
        #expect(Set(told.map(\.msgID)) == ["m2", "m3"])
        #expect(try store.write { db in try messages.takeUnreported(db, limit: 10) }.isEmpty, "each answer is told once")
    }

    @Test("the apps with work are found one index probe per app, never by walking the messages or deliveries")
    func appsWithWorkByIndex() throws {
        let store = try Self.openStore(TestPaths.temporaryDirectory("push-apps") + "/push.sqlite")
        let fanout = FanoutStore()
        let queries = [FanoutStore.distinctAppKeys(in: "deliveries", where: "status = 0 AND leased = 0"),
                       FanoutStore.distinctAppKeys(in: "messages", where: "direct = ?1 AND state IN ('queued', 'sending') AND exhausted = 0")]
        for query in queries {
            let arguments: [any Bindable] = query.contains("?1") ? [1] : []
            let plan = try store.read { db in try db.rows("EXPLAIN QUERY PLAN " + query, arguments: arguments).compactMap { $0[3].string } }
            #expect(plan.contains { $0.contains("USING INDEX deliveries_due_by_app") || $0.contains("USING INDEX messages_open_by_lane") }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN messages") || $0.hasPrefix("SCAN deliveries") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
        // Two apps, one with a retry due later: both listed; the earliest due is the app's own.
        try store.write { db in
            try Self.addMessage(db, id: 1)
            try db.run("INSERT INTO messages (id, msg_id, app_key, plan, state, created_at) VALUES (2, 'm2', 'other', '{}', 'sending', 0)")
            try fanout.commitPage(db, message: 1, deliveries: Self.page(3) { 100 + Double($0) }, looked: 3, nextCursor: nil, total: 3)
            try fanout.commitPage(db, message: 2, deliveries: Self.page(2) { 50 + Double($0) }, looked: 2, nextCursor: nil, total: 2)
        }
        #expect(try store.read { db in try db.rows(queries[0]).compactMap { $0[0].string } } == ["app", "other"])
        #expect(try store.read { db in try fanout.nextDue(db) } == 50)
        let leased = try store.write { db in try fanout.lease(db, now: 1000, limit: 10).deliveries }
        #expect(leased.count == 5, "every app's due deliveries are leased")
        #expect(try store.read { db in try db.rows(queries[0]).compactMap { $0[0].string } }.isEmpty)
        #expect(try store.read { db in try fanout.nextDue(db) } == nil)
    }

    @Test("deliveries are marked sent together, past a statement's 1,000, each once, with the time")
    func sentTogether() throws {
        let store = try Self.openStore(TestPaths.temporaryDirectory("push-sent") + "/push.sqlite")
        let fanout = FanoutStore()
        try store.write { db in
            try Self.addMessage(db, id: 1)
            try fanout.commitPage(db, message: 1, deliveries: Self.page(2500) { _ in 100 }, looked: 2500, nextCursor: nil, total: 2500)
        }
        let leased = try store.write { db in try fanout.lease(db, now: 100, limit: 2500).deliveries }
        #expect(leased.count == 2500)
        try store.write { db in try fanout.sent(db, ids: leased.dropLast().map(\.id), at: 123) }
        let rows = try store.read { db in
            try db.rows("SELECT status, leased, attempts, answered_at FROM deliveries ORDER BY id").map { [$0[0].int, $0[1].int, $0[2].int, $0[3].double.map(Int.init)] }
        }
        #expect(rows.dropLast().allSatisfy { $0 == [1, 0, 1, 123] }, "every one but the last: sent once, at 123")
        #expect(rows.last == [0, 1, 0, nil], "the last one is still with its sender")
    }
}
