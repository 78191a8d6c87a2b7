import Schema
import SQLite

/// The queries on push-statistics reports (`stats.report`) and the per-message counts they feed. Every
/// method runs on the `Database` of the caller's transaction.
struct ReportStore {
    /// Records that a device reported `kind` for a message; false (and nothing changes) when it already had.
    func insertMessageReport(_ db: Database, appKey: String, registrationID: String, kind: StatsKind,
                             msgID: String, time: Double) throws -> Bool {
        try db.run("""
            INSERT OR IGNORE INTO push_reports (app_key, registration_id, kind, msg_id, time) VALUES (?, ?, ?, ?, ?)
            """, appKey, registrationID, kind.rawValue, msgID, time) > 0
    }

    func insertPageReport(_ db: Database, appKey: String, registrationID: String, kind: StatsKind,
                          page: String, time: Double) throws {
        try db.run("INSERT INTO push_reports (app_key, registration_id, kind, page, time) VALUES (?, ?, ?, ?, ?)",
                   appKey, registrationID, kind.rawValue, page, time)
    }

    func countMessage(_ db: Database, appKey: String, msgID: String, kind: StatsKind) throws {
        try db.run("""
            INSERT INTO message_counts (app_key, msg_id, kind, count) VALUES (?, ?, ?, 1)
            ON CONFLICT (app_key, msg_id, kind) DO UPDATE SET count = count + 1
            """, appKey, msgID, kind.rawValue)
    }

    /// Adds the push service's delivery counts (`sent`, `failed`) to the message's.
    func addDelivered(_ db: Database, appKey: String, msgID: String, kind: String, count: Int) throws {
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
