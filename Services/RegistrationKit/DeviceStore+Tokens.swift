import Schema
import SQLite

/// What the push service asks of registration: the tokens a push goes to, and disabling those APNs
/// reports dead.
extension DeviceStore {
    /// The tokens of those of `registrationIDs` that belong to `appKey`, with the Live Activity
    /// token of `liveActivityID` when one is named. One query per call.
    func tokens(_ db: Database, appKey: String, registrationIDs: [String], liveActivityID: String?) throws -> [String: DeviceTokens] {
        guard !registrationIDs.isEmpty else { return [:] }
        let marks = "(" + Array(repeating: "?", count: registrationIDs.count).joined(separator: ",") + ")"
        // The Live Activity's tokens are joined only when one is named: a broadcast's page (a
        // thousand devices) would otherwise probe that table once a device for nothing.
        let rows = try liveActivityID.map { activity in
            try db.rows("""
                SELECT d.registration_id, d.apns_token, d.apns_production, d.voip_token, l.token, d.notification_authorization
                FROM devices d LEFT JOIN live_activity_tokens l
                    ON l.registration_id = d.registration_id AND l.live_activity_id = ?
                WHERE d.app_key = ? AND d.registration_id IN \(marks)
                """, arguments: [activity, appKey] + registrationIDs)
        } ?? db.rows("""
            SELECT registration_id, apns_token, apns_production, voip_token, NULL, notification_authorization
            FROM devices WHERE app_key = ? AND registration_id IN \(marks)
            """, arguments: [appKey] + registrationIDs)
        var found: [String: DeviceTokens] = [:]
        for row in rows {
            guard let id = row[0].string else { continue }
            found[id] = DeviceTokens(apnsToken: row[1].string, apnsProduction: row[2].int == 1, voipToken: row[3].string,
                                     liveActivityToken: liveActivityID == nil ? nil : row[4].string, authorization: row[5].string)
        }
        return found
    }

    /// The devices of `appKey` holding a token of the Live Activity `liveActivityID`, the first
    /// `limit` after registration ID `after`.
    func holders(_ db: Database, appKey: String, liveActivityID: String, after: String, limit: Int) throws -> [String: DeviceTokens] {
        let rows = try db.rows("""
            SELECT d.registration_id, d.apns_production, l.token FROM live_activity_tokens l
            JOIN devices d ON d.registration_id = l.registration_id
            WHERE l.live_activity_id = ? AND d.app_key = ? AND l.registration_id > ? ORDER BY l.registration_id LIMIT ?
            """, liveActivityID, appKey, after, limit)
        var found: [String: DeviceTokens] = [:]
        for row in rows {
            guard let id = row[0].string else { continue }
            found[id] = DeviceTokens(apnsToken: nil, apnsProduction: row[1].int == 1, liveActivityToken: row[2].string)
        }
        return found
    }

    /// Disables a dead token of a device of `appKey`: the APNs or VoIP token when it is still the one
    /// stored and was not given again after `since`; a Live Activity token when it is still stored.
    /// Returns whether one was disabled.
    func disable(_ db: Database, appKey: String, _ dead: InvalidToken, now: Double) throws -> Bool {
        let column: Column
        switch dead.kind {
        case "apns": column = .apnsToken
        case "voip": column = .voipToken
        case "live_activity":
            return try db.run("""
                DELETE FROM live_activity_tokens WHERE token = ? AND registration_id IN
                    (SELECT registration_id FROM devices WHERE registration_id = ? AND app_key = ?)
                """, dead.token, dead.registrationID, appKey) > 0
        default:
            throw CommandError.invalid("tokens[].kind must be apns, voip or live_activity, not \(dead.kind.prefix(32))")
        }
        guard let stamp = column.givenAt else { return false }
        return try db.run("""
            UPDATE devices SET \(column.rawValue) = NULL, updated_at = ?
            WHERE registration_id = ? AND app_key = ? AND \(column.rawValue) = ? AND COALESCE(\(stamp), 0) <= ?
            """, now, dead.registrationID, appKey, dead.token, dead.since) > 0
    }
}
