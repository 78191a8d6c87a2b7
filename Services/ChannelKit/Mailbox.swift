import Foundation
import JSON
import Schema
import SQLite

/// Each device's messages, kept until acknowledged or expired: the mailbox table's queries. Every
/// method runs on the `Database` of the caller's transaction.
struct Mailbox {
    /// How long an acknowledged or expired row is kept, so a message pushed again (push retries a
    /// delivery whose answer it missed) is neither stored nor counted twice.
    static let keepSeconds = 86_400.0
    /// Most messages a device holds unacknowledged; the oldest go first.
    static let limit = 1000

    /// Stores a message (`content` as the device receives it, `text` its JSON) for a device; nil when
    /// it holds it already (a retried delivery).
    func store(_ db: Database, registrationID: String, appKey: String, msgID: String, kind: LiveKind, content: JSONValue, text: String,
               target: String?, expiresAt: Double, now: Double) throws -> LiveEntry? {
        let inserted = try db.run("""
            INSERT INTO mailbox (registration_id, app_key, msg_id, kind, content, target, expires_at, keep_until)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (registration_id, msg_id) DO NOTHING
            """, registrationID, appKey, msgID, kind.rawValue, text, target, expiresAt, max(expiresAt, now + Self.keepSeconds))
        guard inserted > 0 else { return nil }
        let seq = try db.value("SELECT last_insert_rowid()").int.map(Int64.init) ?? 0
        try db.run("""
            UPDATE mailbox SET acked = 1 WHERE seq IN (
                SELECT seq FROM mailbox WHERE registration_id = ? AND acked = 0 ORDER BY seq DESC LIMIT -1 OFFSET ?)
            """, registrationID, Self.limit)
        return LiveEntry(seq: seq, msgID: msgID, kind: kind, content: content)
    }

    /// Bytes of messages one answer carries at most (at least one message): an answer crosses the
    /// gateway, which refuses large frames, and a device with a long backlog gets it in parts.
    static let answerBytes = 48 << 10
    /// Messages one answer carries at most, so a device acknowledging each one by one keeps within
    /// its frame rate.
    static let answerEntries = 100

    /// What a device connecting now receives, in msg_id order, after msg_id `after`:
    /// unacknowledged, unexpired messages and reminders, and the in-app messages not shown yet whose
    /// pages include `page` (or that name none); `more` when `answerBytes` left some for later.
    /// In-app messages returned are marked shown: each is sent at most once. With `inAppOnly`, only
    /// those (a page was entered on a connection that has had the rest).
    func live(_ db: Database, registrationID: String, page: String?, now: Double, after: String = "",
              inAppOnly: Bool = false) throws -> (entries: [LiveEntry], more: Bool) {
        var entries: [LiveEntry] = []
        var bytes = 0
        for row in try db.rows("""
            SELECT seq, msg_id, kind, content, target FROM mailbox
            WHERE registration_id = ? AND acked = 0 AND shown = 0 AND expires_at >= ?
                AND (length(msg_id) > length(?) OR (length(msg_id) = length(?) AND msg_id > ?))
            ORDER BY length(msg_id), msg_id, seq
            """, registrationID, now, after, after, after) {
            guard let kind = row[2].string.flatMap(LiveKind.init(rawValue:)), !inAppOnly || kind == .inapp else { continue }
            let content = row[3].string ?? "{}"
            if !entries.isEmpty && (bytes + content.utf8.count > Self.answerBytes || entries.count == Self.answerEntries) { return (entries, true) }
            if kind == .inapp {
                guard Self.shows(target: row[4].string, on: page) else { continue }
                try db.run("UPDATE mailbox SET shown = 1 WHERE seq = ?", row[0])
            }
            bytes += content.utf8.count
            entries.append(LiveEntry(seq: Int64(row[0].int ?? 0), msgID: row[1].string ?? "", kind: kind, content: try Self.decode(content)))
        }
        return (entries, false)
    }

    /// Marks in-app `entry` shown (it is being sent now).
    func markShown(_ db: Database, seq: Int64) throws {
        try db.run("UPDATE mailbox SET shown = 1 WHERE seq = ?", seq)
    }

    /// Marks the messages acknowledged; returns the msg_ids acknowledged for the first time.
    func acknowledge(_ db: Database, registrationID: String, msgIDs: [String]) throws -> [String] {
        var first: [String] = []
        for msgID in msgIDs where try db.run("UPDATE mailbox SET acked = 1 WHERE registration_id = ? AND msg_id = ? AND acked = 0",
                                             registrationID, msgID) > 0 {
            first.append(msgID)
        }
        return first
    }

    /// Forgets a deleted device's messages.
    func forget(_ db: Database, registrationID: String) throws {
        try db.run("DELETE FROM mailbox WHERE registration_id = ?", registrationID)
    }

    /// Deletes rows past their keeping time, at most `limit`; returns how many.
    func prune(_ db: Database, now: Double, limit: Int) throws -> Int {
        try db.run("DELETE FROM mailbox WHERE seq IN (SELECT seq FROM mailbox WHERE keep_until < ? LIMIT ?)", now, limit)
    }

    /// Whether an in-app message for `target` (a JSON array; empty or absent: any page) shows on `page`.
    static func shows(target: String?, on page: String?) -> Bool {
        guard let target, let pages = try? JSONTreeDecoder().decode([String].self, from: Data(target.utf8)), !pages.isEmpty else { return true }
        guard let page else { return false }
        return pages.contains(page)
    }

    private static func decode(_ content: String) throws -> JSONValue {
        try JSONTreeDecoder().decode(JSONValue.self, from: Data(content.utf8))
    }
}
