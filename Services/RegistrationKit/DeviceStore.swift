import Foundation
import Runtime
import Schema
import SQLite
import WireTime

/// The registration service's queries. Every method runs on the `Database` of the caller's
/// transaction; none opens one of its own.
struct DeviceStore {
    /// Records an app. Its master secret is derived from server.key, never stored.
    func insertApp(_ db: Database, appKey: String, name: String, now: Double) throws {
        try db.run("INSERT INTO apps (app_key, name, master_secret, created_at) VALUES (?, ?, '', ?)", appKey, name, now)
    }

    func appExists(_ db: Database, appKey: String) throws -> Bool {
        try db.value("SELECT 1 FROM apps WHERE app_key = ?", appKey) != .null
    }

    /// The registration ID already issued to this app's install, if any.
    func registrationID(_ db: Database, appKey: String, deviceID: String) throws -> String? {
        try db.value("SELECT registration_id FROM devices WHERE app_key = ? AND device_id = ?", appKey, deviceID).string
    }

    /// The install id a stored device registered with (nil when it gave none).
    func deviceID(_ db: Database, registrationID: String) throws -> String? {
        try db.value("SELECT device_id FROM devices WHERE registration_id = ?", registrationID).string
    }

    func exists(_ db: Database, registrationID: String) throws -> Bool {
        try db.value("SELECT 1 FROM devices WHERE registration_id = ?", registrationID) != .null
    }

    /// The app a device belongs to, or nil when no such device is stored.
    func appKey(_ db: Database, registrationID: String) throws -> String? {
        try db.value("SELECT app_key FROM devices WHERE registration_id = ?", registrationID).string
    }

    func insertDevice(_ db: Database, registrationID: String, _ p: DeviceRegister, appKey: String,
                      platform: String, deviceID: String?, apnsToken: String?, now: Double) throws {
        try db.run("""
            INSERT INTO devices (registration_id, app_key, platform, device_id, apns_token, apns_production,
                                 sdk_version, created_at, updated_at, apns_token_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, registrationID, appKey, platform, deviceID, apnsToken, p.apnsProduction ?? false,
            p.sdkVersion, now, now, apnsToken == nil ? nil : now)
    }

    /// Refreshes what a re-registering install reports; fields it left out keep their values.
    func refreshDevice(_ db: Database, registrationID: String, _ p: DeviceRegister, platform: String,
                       apnsToken: String?, now: Double) throws {
        try db.run("""
            UPDATE devices SET platform = ?, apns_token = COALESCE(?, apns_token),
                apns_production = COALESCE(?, apns_production), sdk_version = COALESCE(?, sdk_version),
                updated_at = ?, apns_token_at = CASE WHEN ? IS NULL THEN apns_token_at ELSE ? END
            WHERE registration_id = ?
            """, platform, apnsToken, p.apnsProduction, p.sdkVersion, now, apnsToken, now, registrationID)
    }

    /// Sets one column of a device. `column` is one of the fixed names below, never client input.
    func set(_ db: Database, _ column: Column, to value: String?, registrationID: String, now: Double) throws {
        if let stamp = column.givenAt {
            try db.run("UPDATE devices SET \(column.rawValue) = ?, \(stamp) = ?, updated_at = ? WHERE registration_id = ?",
                       value, now, now, registrationID)
        } else {
            try db.run("UPDATE devices SET \(column.rawValue) = ?, updated_at = ? WHERE registration_id = ?",
                       value, now, registrationID)
        }
    }

    enum Column: String {
        case apnsToken = "apns_token", voipToken = "voip_token", language, timezone, mobile
        case notificationAuthorization = "notification_authorization"

        /// The column that says when a token was last given, for the token columns.
        var givenAt: String? {
            switch self {
            case .apnsToken: "apns_token_at"
            case .voipToken: "voip_token_at"
            default: nil
            }
        }
    }

    /// The two kinds of Live Activity token a device keeps, each keyed by its own name.
    enum LiveActivityTokenKind {
        /// push-to-start token, keyed by `activity_attributes`
        case start
        /// push token of one activity, keyed by `live_activity_id`
        case activity

        var table: String { self == .start ? "live_activity_start_tokens" : "live_activity_tokens" }
        var keyColumn: String { self == .start ? "activity_attributes" : "live_activity_id" }
    }

    /// Stores `token` under `key`, or removes it when `token` is nil.
    func setToken(_ db: Database, _ kind: LiveActivityTokenKind, registrationID: String, key: String,
                  token: String?, now: Double) throws {
        if let token {
            try db.run("""
                INSERT INTO \(kind.table) (registration_id, \(kind.keyColumn), token) VALUES (?, ?, ?)
                ON CONFLICT (registration_id, \(kind.keyColumn)) DO UPDATE SET token = excluded.token
                """, registrationID, key, token)
        } else {
            try db.run("DELETE FROM \(kind.table) WHERE registration_id = ? AND \(kind.keyColumn) = ?", registrationID, key)
        }
        try db.run("UPDATE devices SET updated_at = ? WHERE registration_id = ?", now, registrationID)
    }

    func delete(_ db: Database, registrationID: String) throws {
        try db.run("DELETE FROM devices WHERE registration_id = ?", registrationID)
    }

    func device(_ db: Database, registrationID: String) throws -> Device? {
        guard let row = try db.row("SELECT * FROM devices WHERE registration_id = ?", registrationID) else { return nil }
        let startTokens = try db.rows(
            "SELECT activity_attributes, token FROM live_activity_start_tokens WHERE registration_id = ?", registrationID)
        let activityTokens = try db.rows(
            "SELECT live_activity_id, token FROM live_activity_tokens WHERE registration_id = ?", registrationID)
        var device = Device(
            registrationID: registrationID,
            appKey: row["app_key"].string ?? "",
            platform: row["platform"].string ?? "",
            deviceID: row["device_id"].string,
            apnsToken: row["apns_token"].string,
            apnsProduction: row["apns_production"].int == 1,
            sdkVersion: row["sdk_version"].string,
            voipToken: row["voip_token"].string,
            language: row["language"].string,
            timezone: row["timezone"].string,
            mobile: row["mobile"].string,
            liveActivityStartTokens: Self.dictionary(startTokens),
            liveActivityTokens: Self.dictionary(activityTokens),
            createdAt: RFC3339.string(from: Date(timeIntervalSince1970: row["created_at"].double ?? 0)),
            updatedAt: RFC3339.string(from: Date(timeIntervalSince1970: row["updated_at"].double ?? 0)))
        device.notificationAuthorization = row["notification_authorization"].string
        return device
    }

    private static func dictionary(_ rows: [Row]) -> [String: String] {
        Dictionary(rows.map { ($0[0].string ?? "", $0[1].string ?? "") }, uniquingKeysWith: { _, last in last })
    }
}
