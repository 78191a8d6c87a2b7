import Foundation
import Schema
import SQLite

/// The fan-out's side of the push database: messages still to expand, their deliveries, and each
/// APNs answer recorded. Every method runs on the `Database` of the caller's transaction.
struct FanoutStore {
    /// A message whose audience is not expanded to the end yet.
    struct OpenMessage {
        let id: Int64
        let msgID: String
        let appKey: String
        let plan: Data
        let cursor: String?
        let audienceTotal: Int?
        let expanded: Int
        let createdAt: Double
    }

    /// A device's notification, to send now.
    struct Delivery {
        /// The row's number, which the sender's answer comes back with.
        let id: Int64
        let message: Int64
        let appKey: String
        let registrationID: String
        let token: String
        let production: Bool
        let badge: Int?
        let attempts: Int
    }

    /// The apps with messages of one lane (`direct` or not) whose pages are not all expanded, in
    /// app-key order.
    func openApps(_ db: Database, direct: Bool) throws -> [String] {
        try db.rows(Self.distinctAppKeys(in: "messages", where: "direct = ?1 AND state IN ('queued', 'sending') AND exhausted = 0"),
                    direct).compactMap { $0[0].string }
    }

    /// The distinct `app_key`s of `table`'s rows that match `condition`, in order: one index probe
    /// per app (the next key after the last), never a walk over the rows, which a `SELECT DISTINCT`
    /// is (a burst of fired local notifications leaves thousands of open messages of one app, and
    /// every pass of the fan-out asks). `condition` must be the partial index's, or imply it.
    static func distinctAppKeys(in table: String, where condition: String) -> String {
        """
        WITH RECURSIVE apps(app_key) AS (
            SELECT (SELECT MIN(app_key) FROM \(table) WHERE \(condition))
            UNION ALL
            SELECT (SELECT MIN(app_key) FROM \(table) WHERE \(condition) AND app_key > apps.app_key) FROM apps WHERE apps.app_key IS NOT NULL)
        SELECT app_key FROM apps WHERE app_key IS NOT NULL
        """
    }

    /// `appKey`'s messages of one lane with pages left to expand, in id order from the first after
    /// `after` (wrapping round to the oldest), at most `limit`.
    func open(_ db: Database, appKey: String, direct: Bool, after: Int64, limit: Int) throws -> [OpenMessage] {
        let later = try open(db, appKey: appKey, direct: direct, from: after + 1, limit: limit)
        guard later.count < limit, after >= 0 else { return later }
        let earlier = try open(db, appKey: appKey, direct: direct, from: 0, limit: limit - later.count).filter { $0.id <= after }
        return later + earlier
    }

    private func open(_ db: Database, appKey: String, direct: Bool, from first: Int64, limit: Int) throws -> [OpenMessage] {
        try db.rows("""
            SELECT id, msg_id, app_key, plan, cursor, audience_total, expanded, created_at FROM messages
            WHERE direct = ? AND app_key = ? AND state IN ('queued', 'sending') AND exhausted = 0 AND id >= ? ORDER BY id LIMIT ?
            """, direct, appKey, first, limit).compactMap { row in
            guard case .integer(let id) = row[0] else { return nil }
            return OpenMessage(id: id, msgID: row[1].string ?? "", appKey: row[2].string ?? "", plan: Data((row[3].string ?? "").utf8),
                               cursor: row[4].string, audienceTotal: row[5].int, expanded: row[6].int ?? 0, createdAt: row[7].double ?? 0)
        }
    }

    /// Commits one page of a message: its deliveries (a device already a target of the message is
    /// skipped), where the next page starts, and whether this was the last. Nothing when the message
    /// was withdrawn meanwhile. Returns how many deliveries were added.
    @discardableResult
    func commitPage(_ db: Database, message: Int64, deliveries: [(registrationID: String, token: String, production: Bool, badge: Int?, due: Double)],
                    looked: Int, nextCursor: String?, total: Int?) throws -> Int {
        guard let row = try db.row("SELECT state, app_key FROM messages WHERE id = ?", message), row[0].string != "withdrawn" else { return 0 }
        let appKey = row[1].string ?? ""
        var added = 0
        var start = 0
        while start < deliveries.count {
            // As many rows a statement as the largest size that fits: a statement per row spent
            // about a third of inserting them on the statement itself (binding, stepping, halting).
            let rows = Self.insertSizes.first { $0 <= deliveries.count - start } ?? 1
            var arguments: [any Bindable] = []
            arguments.reserveCapacity(rows * 7)
            for d in deliveries[start..<start + rows] {
                arguments.append(message)
                arguments.append(appKey)
                arguments.append(d.registrationID)
                arguments.append(d.token)
                arguments.append(d.production)
                arguments.append(d.badge)
                arguments.append(d.due)
            }
            added += try db.run(Self.insertDeliveries[rows]!, arguments: arguments)
            start += rows
        }
        // `sending`, or at once `done` when this was the last page and nothing is pending.
        try db.run("""
            UPDATE messages SET targets = targets + ?, pending = pending + ?, cursor = ?, exhausted = ?,
                audience_total = COALESCE(?, audience_total), expanded = expanded + ?,
                state = CASE WHEN ? AND pending + ? <= 0 THEN 'done' ELSE 'sending' END
            WHERE id = ?
            """, added, added, nextCursor, nextCursor == nil, total, looked, nextCursor == nil, added, message)
        return added
    }

    /// The rows one insert of deliveries takes, largest first.
    static let insertSizes = [100, 10, 1]
    /// The insert of that many deliveries (a device already a target of the message is skipped).
    static let insertDeliveries: [Int: String] = Dictionary(uniqueKeysWithValues: insertSizes.map { rows in
        (rows, "INSERT OR IGNORE INTO deliveries (message, app_key, registration_id, token, production, badge, due) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
    })

    /// Hands up to `limit` due deliveries to the caller, leased so no other pass takes them: the
    /// apps with deliveries waiting in turn, `quantum` at a time each, starting with the first app after
    /// `after` (the last one served before), each app's oldest due first; so one app's broadcast
    /// never holds back another app's push by more than a turn. A lease outlives nothing but this
    /// process (`releaseLeases` at start). Returns the deliveries and the last app served.
    /// `room` caps what one app may take in this pass (its share of the sender slots).
    func lease(_ db: Database, now: Double, limit: Int, quantum: Int = 100, after: String? = nil,
               room: (String) -> Int = { _ in .max }) throws -> (deliveries: [Delivery], last: String?) {
        let apps = try db.rows(Self.distinctAppKeys(in: "deliveries", where: "status = 0 AND leased = 0")).compactMap { $0[0].string }
        let start = after.flatMap { last in apps.firstIndex { $0 > last } } ?? 0
        var turn = Array(apps[start...] + apps[..<start])
        var leased: [Delivery] = []
        var taken: [String: Int] = [:]
        var last: String?
        while leased.count < limit, !turn.isEmpty {
            var again: [String] = []
            for app in turn where leased.count < limit {
                let take = min(quantum, limit - leased.count, room(app) - taken[app, default: 0])
                guard take > 0 else { continue }
                let got = try lease(db, appKey: app, now: now, limit: take)
                if !got.isEmpty { last = app }
                leased += got
                taken[app, default: 0] += got.count
                if got.count == take { again.append(app) }
            }
            turn = again
        }
        return (leased, last ?? after)
    }

    private func lease(_ db: Database, appKey: String, now: Double, limit: Int) throws -> [Delivery] {
        try db.rows("""
            UPDATE deliveries SET leased = 1 WHERE id IN (
                SELECT id FROM deliveries WHERE app_key = ? AND status = 0 AND leased = 0 AND due <= ? ORDER BY due LIMIT ?)
            RETURNING id, message, registration_id, token, production, badge, attempts
            """, appKey, now, limit).compactMap { row in
            guard case .integer(let id) = row[0], case .integer(let message) = row[1], let registrationID = row[2].string else { return nil }
            return Delivery(id: id, message: message, appKey: appKey, registrationID: registrationID, token: row[3].string ?? "",
                            production: row[4].int == 1, badge: row[5].int, attempts: row[6].int ?? 0)
        }
    }

    /// Whether at least `limit` of `appKey`'s notifications are due and not handed to a sender yet:
    /// the fan-out is far enough ahead for that app and expands no more of its pages for now, while
    /// other apps' go on. Rows waiting for a retry later do not count, so throttled notifications
    /// do not hold back the app's next push.
    func isBacklogFull(_ db: Database, appKey: String, now: Double, limit: Int) throws -> Bool {
        let due = try db.value("""
            SELECT COUNT(*) FROM (SELECT 1 FROM deliveries WHERE app_key = ? AND status = 0 AND leased = 0 AND due <= ? LIMIT ?)
            """, appKey, now, limit).int ?? 0
        return due >= limit
    }

    /// When the next delivery not leased falls due, if any: the earliest of each app's, each one
    /// probe of the index by app.
    func nextDue(_ db: Database) throws -> Double? {
        try db.value("""
            SELECT MIN((SELECT MIN(due) FROM deliveries WHERE app_key = apps.app_key AND status = 0 AND leased = 0))
            FROM (\(Self.distinctAppKeys(in: "deliveries", where: "status = 0 AND leased = 0"))) apps
            """).double
    }

    /// A process that stopped with deliveries handed to senders did not learn their fate: they are
    /// due again (the requests in flight at a crash may reach the phone twice; their collapse id
    /// folds them into one).
    func releaseLeases(_ db: Database) throws {
        try db.run("UPDATE deliveries SET status = \(Self.unlessWithdrawn), leased = 0 WHERE leased = 1")
    }

    /// Marks deliveries sent, up to 1,000 rows a statement (their ids as one JSON array): a
    /// broadcast's answers come back a hundred a request, and a statement per row was most of
    /// recording them.
    func sent(_ db: Database, ids: [Int64], at now: Double) throws {
        for start in stride(from: 0, to: ids.count, by: 1000) {
            let chunk = ids[start..<min(start + 1000, ids.count)]
            try db.run("""
                UPDATE deliveries SET status = 1, leased = 0, attempts = attempts + 1, answered_at = ?
                WHERE id IN (SELECT value FROM json_each(?))
                """, now, "[" + chunk.map(String.init).joined(separator: ",") + "]")
        }
    }

    func failed(_ db: Database, _ d: Delivery, reason: String, at now: Double) throws {
        try db.run("""
            UPDATE deliveries SET status = 2, reason = ?, leased = 0, attempts = attempts + 1, answered_at = ? WHERE id = ?
            """, reason, now, d.id)
        try db.run("""
            INSERT INTO failures (message, reason, count) VALUES (?, ?, 1)
            ON CONFLICT (message, reason) DO UPDATE SET count = count + 1
            """, d.message, reason)
    }

    /// A message's counters after some of its deliveries ended: `sent` sent, `failed` failed for
    /// good; `done` once every page is expanded and nothing is pending.
    func tally(_ db: Database, message: Int64, sent: Int, failed: Int) throws {
        try db.run("""
            UPDATE messages SET sent = sent + ?, pending = pending - ?,
                state = CASE WHEN state = 'sending' AND exhausted = 1 AND pending - ? <= 0 THEN 'done' ELSE state END
            WHERE id = ?
            """, sent, sent + failed, sent + failed, message)
    }

    /// The status of a delivery back from a sender unanswered: pending again (0), or withdrawn (3)
    /// when its message was withdrawn meanwhile (the push-7 trigger counts it on the message).
    static let unlessWithdrawn = "CASE WHEN (SELECT state FROM messages WHERE id = deliveries.message) = 'withdrawn' THEN 3 ELSE 0 END"

    /// Back in the queue at `due`, one attempt more (or withdrawn, when its message was meanwhile).
    func retry(_ db: Database, _ d: Delivery, due: Double) throws {
        try db.run("""
            UPDATE deliveries SET status = \(Self.unlessWithdrawn), leased = 0, due = ?, attempts = attempts + 1 WHERE id = ?
            """, due, d.id)
    }

    /// Back in the queue at `due` without counting an attempt: the request never reached a sender.
    func unlease(_ db: Database, _ d: Delivery, due: Double) throws {
        try db.run("UPDATE deliveries SET status = \(Self.unlessWithdrawn), leased = 0, due = ? WHERE id = ? AND status = 0", due, d.id)
    }
}
