import Credentials
import Foundation
import Schema
import SQLite

/// The apps' APNs provider keys, each .p8 sealed under a key derived from server.key and bound to
/// its app, so the database alone never gives a key away. Nothing here returns a key to a client:
/// only the fan-out opens one, to hand it to a sender.
struct CredentialStore {
    let box: SecretBox

    init(secrets: Secrets) { box = SecretBox(secrets: secrets, purpose: "apns.p8") }

    func save(_ db: Database, appKey: String, teamID: String, keyID: String, bundleID: String, p8: String, now: Double) throws {
        let sealed = box.seal(Data(p8.utf8), context: appKey)
        try db.run("""
            INSERT INTO credentials (app_key, team_id, key_id, bundle_id, sealed_p8, updated_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_key) DO UPDATE SET team_id = excluded.team_id, key_id = excluded.key_id,
                bundle_id = excluded.bundle_id, sealed_p8 = excluded.sealed_p8, updated_at = excluded.updated_at
            """, appKey, teamID, keyID, bundleID, sealed, now)
    }

    func has(_ db: Database, appKey: String) throws -> Bool {
        try db.value("SELECT 1 FROM credentials WHERE app_key = ?", appKey) != .null
    }

    /// The app's key and bundle id, opened; nil when the app has none (or its box does not open).
    func open(_ db: Database, appKey: String) throws -> (key: ApnsKey, bundleID: String)? {
        guard let row = try db.row("SELECT team_id, key_id, bundle_id, sealed_p8 FROM credentials WHERE app_key = ?", appKey),
              let team = row[0].string, let keyID = row[1].string, let bundle = row[2].string, let sealed = row[3].data,
              let p8 = box.open(sealed, context: appKey) else { return nil }
        return (ApnsKey(teamID: team, keyID: keyID, p8: String(decoding: p8, as: UTF8.self)), bundle)
    }
}
