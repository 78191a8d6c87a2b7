import Schema
import SQLite

/// The queries on push-statistics reports (`stats.report`) and the per-message counts they feed. Every
/// method runs on the `Database` of the caller's transaction.
struct ReportStore {
    private let counters = EventStore()

    /// One message report, as it waits for push's word on whether its device was a target.
    struct Pending: Equatable {
        var id: Int64
        var appKey: String
        var msgID: String
        var registrationID: String
        var kind: StatsKind
        var time: Double
    }

    /// Records, unverified and not counted yet, that a device reported `kind` for a message; nothing
    /// changes when it already had.
    func insertMessageReport(_ db: Database, appKey: String, registrationID: String, kind: StatsKind,
                             msgID: String, time: Double) throws {
        try db.run("""
            INSERT OR IGNORE INTO push_reports (app_key, registration_id, kind, msg_id, time, verified) VALUES (?, ?, ?, ?, ?, NULL)
            """, appKey, registrationID, kind.rawValue, msgID, time)
    }

    /// The oldest `limit` message reports not verified yet.
    func unverified(_ db: Database, limit: Int) throws -> [Pending] {
        try db.rows("""
            SELECT id, app_key, msg_id, registration_id, kind, time FROM push_reports WHERE verified IS NULL ORDER BY id LIMIT ?
            """, limit).compactMap { row in
            guard case .integer(let id) = row[0], let appKey = row[1].string, let msgID = row[2].string,
                  let registrationID = row[3].string, let kind = row[4].string.flatMap(StatsKind.init(rawValue:)) else { return nil }
            return Pending(id: id, appKey: appKey, msgID: msgID, registrationID: registrationID, kind: kind, time: row[5].double ?? 0)
        }
    }

    /// Settles reports with push's word: a target's is marked verified and counted, in its message's
    /// counts and in its hour's `$<kind>`; any other is marked refused and never counted. A report
    /// erased meanwhile (`forget`) or settled already is left alone; so is a report that took a
    /// deleted one's id, which names another device or message. Returns how many were counted.
    @discardableResult
    func settle(_ db: Database, _ verdicts: [TargetCheck.Verdict]) throws -> Int {
        var counted = 0
        for verdict in verdicts {
            let report = verdict.report
            guard try db.run("""
                UPDATE push_reports SET verified = ? WHERE id = ? AND verified IS NULL
                AND app_key = ? AND msg_id = ? AND registration_id = ? AND kind = ?
                """, verdict.isTarget ? 1 : 0, report.id, report.appKey, report.msgID, report.registrationID,
                report.kind.rawValue) > 0, verdict.isTarget else { continue }
            try addCount(db, appKey: report.appKey, msgID: report.msgID, kind: report.kind.rawValue, count: 1)
            try counters.count(db, appKey: report.appKey, name: "$" + report.kind.rawValue, hour: AnalyticsHandler.hour(report.time), by: 1)
            counted += 1
        }
        return counted
    }

    func insertPageReport(_ db: Database, appKey: String, registrationID: String, kind: StatsKind,
                          page: String, time: Double) throws {
        try db.run("INSERT INTO push_reports (app_key, registration_id, kind, page, time) VALUES (?, ?, ?, ?, ?)",
                   appKey, registrationID, kind.rawValue, page, time)
    }

    /// Adds `count` to the message's count of `kind`: a verified report's kind, or the push service's
    /// deliveries (`sent`, `failed`).
    func addCount(_ db: Database, appKey: String, msgID: String, kind: String, count: Int) throws {
        guard count > 0 else { return }
        try db.run("""
            INSERT INTO message_counts (app_key, msg_id, kind, count) VALUES (?, ?, ?, ?)
            ON CONFLICT (app_key, msg_id, kind) DO UPDATE SET count = count + excluded.count
            """, appKey, msgID, kind, count)
    }

    /// How many devices reported each kind for the message (zeros when none did).
    func messageCounts(_ db: Database, appKey: String, msgID: String) throws -> MessageCounts {
        var counts = MessageCounts()
        for row in try db.rows("SELECT kind, count FROM message_counts WHERE app_key = ? AND msg_id = ?", appKey, msgID) {
            let count = row[1].int ?? 0
            if row[0].string == "sent" { counts.sent = count }
            if row[0].string == "failed" { counts.failed = count }
            switch row[0].string.flatMap(StatsKind.init(rawValue:)) {
            case .received?: counts.received = count
            case .displayed?: counts.displayed = count
            case .opened?: counts.opened = count
            case .inappShow?: counts.inappShow = count
            case .inappClick?: counts.inappClick = count
            case .voipReceived?: counts.voipReceived = count
            case .pageEnter?, .pageLeave?, nil: break
            }
        }
        return counts
    }

    /// Erases the device's reports and remembers it was deleted, so a late report cannot bring it back.
    /// The per-message counts, which name no device, keep what it contributed.
    func forget(_ db: Database, appKey: String, registrationID: String, now: Double) throws {
        try db.run("DELETE FROM push_reports WHERE registration_id = ?", registrationID)
        try db.run("INSERT OR IGNORE INTO forgotten_devices (registration_id, app_key, forgotten_at) VALUES (?, ?, ?)",
                   registrationID, appKey, now)
    }

    func isForgotten(_ db: Database, registrationID: String) throws -> Bool {
        try db.value("SELECT 1 FROM forgotten_devices WHERE registration_id = ?", registrationID) != .null
    }

    /// The number of reports kept about a device.
    func reportCount(_ db: Database, registrationID: String) throws -> Int {
        try db.value("SELECT COUNT(*) FROM push_reports WHERE registration_id = ?", registrationID).int ?? 0
    }
}
