import Foundation
import Runtime
import Schema
import SQLite
import WireTime

/// Channel subscriptions (TikPush), each with an optional expiry (Unix seconds) and the
/// background-push flag. An expired subscription counts as absent everywhere and is purged.
struct ChannelStore {
    func subscribe(_ db: Database, device: Int64, appKey: String, channel: String, expiresAt: Double?,
                   backgroundPush: Bool) throws {
        try db.run("INSERT OR IGNORE INTO channels (app_key, name) VALUES (?, ?)", appKey, channel)
        let id = try db.value("SELECT id FROM channels WHERE app_key = ? AND name = ?", appKey, channel)
        try db.run("""
            INSERT INTO subscriptions (channel, device, expires_at, background_push) VALUES (?, ?, ?, ?)
            ON CONFLICT (channel, device) DO UPDATE SET expires_at = excluded.expires_at,
                background_push = excluded.background_push
            """, id, device, expiresAt, backgroundPush)
    }

    /// Returns whether a subscription was there.
    @discardableResult
    func unsubscribe(_ db: Database, device: Int64, appKey: String, channel: String) throws -> Bool {
        try db.run("""
            DELETE FROM subscriptions WHERE device = ? AND channel = (SELECT id FROM channels WHERE app_key = ? AND name = ?)
            """, device, appKey, channel) > 0
    }

    /// Whether an unexpired subscription exists; an expired one found here is purged.
    func isSubscribed(_ db: Database, device: Int64, appKey: String, channel: String, now: Double) throws -> Bool {
        guard let row = try db.row("""
            SELECT s.expires_at FROM subscriptions s JOIN channels c ON c.id = s.channel
            WHERE s.device = ? AND c.app_key = ? AND c.name = ?
            """, device, appKey, channel) else { return false }
        if let expiry = row[0].double, expiry <= now {
            try unsubscribe(db, device: device, appKey: appKey, channel: channel)
            return false
        }
        return true
    }

    /// The device's unexpired subscriptions, by channel name.
    func list(_ db: Database, device: Int64, now: Double) throws -> [ChannelSubscription] {
        try db.rows("""
            SELECT c.name, s.expires_at, s.background_push FROM subscriptions s JOIN channels c ON c.id = s.channel
            WHERE s.device = ? AND (s.expires_at IS NULL OR s.expires_at > ?) ORDER BY c.name
            """, device, now).map { row in
            ChannelSubscription(channel: row[0].string ?? "",
                                expiresAt: row[1].double.map { RFC3339.string(from: Date(timeIntervalSince1970: $0)) },
                                backgroundPush: row[2].int == 1)
        }
    }

    func removeAll(_ db: Database, device: Int64) throws {
        try db.run("DELETE FROM subscriptions WHERE device = ?", device)
    }

    /// Deletes every subscription that expired by `now`; returns how many.
    @discardableResult
    func purgeExpired(_ db: Database, now: Double) throws -> Int {
        try db.run("DELETE FROM subscriptions WHERE expires_at IS NOT NULL AND expires_at <= ?", now)
    }

    /// The earliest expiry still stored, if any.
    func nextExpiry(_ db: Database) throws -> Double? {
        try db.value("SELECT MIN(expires_at) FROM subscriptions WHERE expires_at IS NOT NULL").double
    }
}
