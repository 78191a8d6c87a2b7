import Foundation
import Schema
import SQLite
import WireTime
import JSON

/// The push service's messages: accepting one, the idempotency keys, and what the status queries
/// read. Every method runs on the `Database` of the caller's transaction.
struct MessageStore {
    /// How long a `cid` answers its first msg_id.
    static let cidLifetime = 86_400.0

    /// Stores an accepted push, queued for the fan-out; returns its msg_id, the row's number. The
    /// number is taken before the insert (the transaction is the only writer): the one after
    /// AUTOINCREMENT's high-water mark, which is what SQLite would give the row. So the row is
    /// written once, with its msg_id, rather than inserted and then updated.
    func insert(_ db: Database, appKey: String, plan: PushPlan, requestID: String?, now: Double) throws -> String {
        let rowID = Int64(try db.value("SELECT seq FROM sqlite_sequence WHERE name = 'messages'").int ?? 0) + 1
        let msgID = String(rowID)
        try db.run("""
            INSERT INTO messages (id, msg_id, app_key, plan, request_id, state, created_at, direct)
            VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)
            """, rowID, msgID, appKey, String(decoding: WireCodec.encode(plan), as: UTF8.self), requestID, now, AudiencePager.isDirect(plan))
        return msgID
    }

    /// The msg_id a `cid` of the app answered within its lifetime, if any.
    func msgID(_ db: Database, appKey: String, cid: String, now: Double) throws -> String? {
        try db.value("SELECT msg_id FROM cids WHERE app_key = ? AND cid = ? AND created_at > ?",
                     appKey, cid, now - Self.cidLifetime).string
    }

    func remember(_ db: Database, appKey: String, cid: String, msgID: String, now: Double) throws {
        try db.run("""
            INSERT INTO cids (app_key, cid, msg_id, created_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (app_key, cid) DO UPDATE SET msg_id = excluded.msg_id, created_at = excluded.created_at
            """, appKey, cid, msgID, now)
    }

    /// Forgets idempotency keys past their lifetime, at most `limit`; returns how many. Each by its
    /// full key: a row-value `IN (SELECT …)` would be planned by `app_key` alone.
    func pruneCids(_ db: Database, now: Double, limit: Int) throws -> Int {
        let expired = try db.rows("SELECT app_key, cid FROM cids WHERE created_at <= ? LIMIT ?", now - Self.cidLifetime, limit)
        for row in expired {
            try db.run("DELETE FROM cids WHERE app_key = ? AND cid = ?", row[0].string ?? "", row[1].string ?? "")
        }
        return expired.count
    }

    /// The message's row id and state, when `msgID` is one of the app's.
    func message(_ db: Database, appKey: String, msgID: String) throws -> (id: Int64, state: String)? {
        guard let row = try db.row("SELECT id, state FROM messages WHERE msg_id = ? AND app_key = ?", msgID, appKey),
              case .integer(let id) = row[0], let state = row[1].string else { return nil }
        return (id, state)
    }

    func status(_ db: Database, appKey: String, msgID: String) throws -> MessageStatus? {
        guard let row = try db.row("""
            SELECT id, targets, sent, pending, state, withdrawn FROM messages WHERE msg_id = ? AND app_key = ?
            """, msgID, appKey), case .integer(let id) = row[0] else { return nil }
        var failed: [String: Int] = [:]
        for failure in try db.rows("SELECT reason, count FROM failures WHERE message = ?", id) {
            failed[failure[0].string ?? "unknown"] = failure[1].int ?? 0
        }
        return MessageStatus(targets: row[1].int ?? 0, sent: row[2].int ?? 0, failed: failed, pending: row[3].int ?? 0,
                             state: row[4].string ?? "queued", withdrawn: row[5].int ?? 0)
    }

    /// The app's messages with row id below `before` (all when nil), newest first, at most `limit`.
    func list(_ db: Database, appKey: String, before: Int64?, limit: Int) throws -> [PushListEntry] {
        let rows = try db.rows("""
            SELECT m.msg_id, m.created_at, m.state, m.plan, m.targets, m.sent, m.pending,
                   (SELECT COALESCE(SUM(count), 0) FROM failures f WHERE f.message = m.id)
            FROM messages m WHERE m.app_key = ? AND m.id < ? ORDER BY m.id DESC LIMIT ?
            """, appKey, before ?? Int64.max, limit)
        return rows.map { row in
            let plan = (row[3].string).flatMap { try? WireCodec.decode(PushPlan.self, from: Data($0.utf8)) }
            return PushListEntry(msgID: row[0].string ?? "", createdAt: RFC3339.string(from: Date(timeIntervalSince1970: row[1].double ?? 0)),
                                 state: row[2].string ?? "", kind: plan?.content.kind.rawValue ?? "", to: plan.map { Self.audience($0.target) } ?? .null,
                                 payload: plan?.content.payload ?? .null, targets: row[4].int ?? 0, sent: row[5].int ?? 0,
                                 failed: row[7].int ?? 0, pending: row[6].int ?? 0)
        }
    }

    /// A target as `push.send`'s `to` names it.
    static func audience(_ target: PushTarget) -> JSONValue {
        if target.isAll { return .string("all") }
        var to: [String: JSONValue] = [:]
        let lists: [(String, [String]?)] = [("registration_id", target.registrationIDs), ("alias", target.aliases), ("tag", target.tags),
                                            ("tag_and", target.tagAnd), ("tag_not", target.tagNot)]
        for (key, values) in lists { if let values { to[key] = .array(values.map(JSONValue.string)) } }
        if let activity = target.liveActivityID { to["live_activity_id"] = .string(activity) }
        return .object(to)
    }

    /// The app's last `limit` messages to one device, newest first, among its `window` latest pushes:
    /// each of those is probed for the device's row by the deliveries' key (message, registration_id),
    /// so the fan-out keeps no index by device for this page's sake.
    func deviceHistory(_ db: Database, appKey: String, registrationID: String, limit: Int, window: Int = 2000) throws -> [PushDeviceHistoryEntry] {
        try db.rows("""
            SELECT m.msg_id, m.created_at, d.status, d.reason, d.answered_at
            FROM (SELECT id, msg_id, created_at FROM messages WHERE app_key = ? ORDER BY id DESC LIMIT ?) m
            JOIN deliveries d ON d.message = m.id AND d.registration_id = ?
            ORDER BY m.id DESC LIMIT ?
            """, appKey, window, registrationID, limit).map { row in
            let status = switch row[2].int { case 1: "sent"; case 2: "failed"; case 3: "withdrawn"; default: "pending" }
            return PushDeviceHistoryEntry(msgID: row[0].string ?? "", createdAt: RFC3339.string(from: Date(timeIntervalSince1970: row[1].double ?? 0)),
                                          status: status, reason: row[3].string,
                                          answeredAt: row[4].double.map { RFC3339.string(from: Date(timeIntervalSince1970: $0)) })
        }
    }

    /// One device's part in a message.
    func delivery(_ db: Database, message: Int64, registrationID: String) throws -> DeliveryStatus {
        guard let row = try db.row("SELECT status, reason FROM deliveries WHERE message = ? AND registration_id = ?",
                                   message, registrationID) else { return DeliveryStatus(status: "not_target") }
        switch row[0].int {
        case 1: return DeliveryStatus(status: "sent")
        case 2: return DeliveryStatus(status: "failed", reason: row[1].string)
        case 3: return DeliveryStatus(status: "withdrawn")
        default: return DeliveryStatus(status: "pending")
        }
    }

    /// Messages with answers not yet told to analytics: at most `limit` of them, each with the
    /// new sends and failures by reason; marked told, in the caller's transaction.
    func takeUnreported(_ db: Database, limit: Int) throws -> [PushDeliveredEvent] {
        var events: [PushDeliveredEvent] = []
        // Those with new sends, then those with new failures only: marking a message told clears
        // both, so the second query never finds one the first took.
        for query in Self.unreportedQueries where events.count < limit {
            for row in try db.rows(query, limit - events.count) {
                guard case .integer(let id) = row[0], let appKey = row[1].string, let msgID = row[2].string else { continue }
                var failed: [String: Int] = [:]
                for failure in try db.rows("SELECT reason, count - reported FROM failures WHERE message = ? AND count > reported", id) {
                    failed[failure[0].string ?? "unknown"] = failure[1].int ?? 0
                }
                try db.run("UPDATE messages SET sent_reported = sent WHERE id = ?", id)
                if !failed.isEmpty { try db.run("UPDATE failures SET reported = count WHERE message = ?", id) }
                events.append(PushDeliveredEvent(appKey: appKey, msgID: msgID, sent: row[3].int ?? 0, failed: failed))
            }
        }
        return events
    }

    /// Messages with sends not told yet, and with failures not told yet; each read off its partial
    /// index of push-5 and cut at its LIMIT. (As one UNION, SQLite gathered every unreported
    /// message into a temporary tree before the LIMIT, each time: 5 ms a tick with 10,000 waiting.)
    static let unreportedQueries = [
        "SELECT id, app_key, msg_id, sent - sent_reported FROM messages WHERE sent > sent_reported LIMIT ?",
        """
        SELECT m.id, m.app_key, m.msg_id, m.sent - m.sent_reported FROM failures f JOIN messages m ON m.id = f.message
        WHERE f.count > f.reported GROUP BY f.message LIMIT ?
        """,
    ]

    /// Stops a message: no page is expanded any more, and its deliveries not with a sender end as
    /// withdrawn (those with a sender end as its answer says, or withdrawn if it is to be retried).
    func withdraw(_ db: Database, message: Int64) throws {
        try db.run("UPDATE messages SET state = 'withdrawn' WHERE id = ?", message)
        try db.run("UPDATE deliveries SET status = 3 WHERE message = ? AND status = 0 AND leased = 0", message)
    }
}
