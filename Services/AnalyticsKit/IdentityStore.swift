import Credentials
import Foundation
import Runtime
import Schema
import SQLite

/// The queries on EUIDs, installs and identities. Every method runs on the `Database` of the caller's
/// transaction; none opens one of its own.
struct IdentityStore {
    /// The shard this store serves; the EUIDs it gives out hash to it, so the gateway finds them here.
    var shard = ShardLayout()

    /// Issues a new EUID for the app: 96 random bits as hex, drawn until they land on this shard.
    func create(_ db: Database, appKey: String, now: Double) throws -> String {
        var euid = newEUID()
        while try db.value("SELECT 1 FROM euids WHERE euid = ?", euid) != .null { euid = newEUID() }
        try db.run("INSERT INTO euids (euid, app_key, created_at) VALUES (?, ?, ?)", euid, appKey, now)
        return euid
    }

    private func newEUID() -> String {
        while true {
            let euid = RandomKey.hex(bytes: 12)
            if ShardHash.shard(of: euid, count: shard.count) == shard.index { return euid }
        }
    }

    /// The EUID that now stands for `euid` in the app (itself, or the one it was merged into), or nil when the
    /// app has no such EUID.
    func live(_ db: Database, euid: String, appKey: String) throws -> String? {
        guard let row = try db.row("SELECT app_key, merged_into FROM euids WHERE euid = ?", euid),
              row[0].string == appKey else { return nil }
        return row[1].string ?? euid
    }

    func install(_ db: Database, appKey: String, deviceID: String) throws -> String? {
        try db.value("SELECT euid FROM installs WHERE app_key = ? AND device_id = ?", appKey, deviceID).string
    }

    func setInstall(_ db: Database, appKey: String, deviceID: String, euid: String) throws {
        try db.run("""
            INSERT INTO installs (app_key, device_id, euid) VALUES (?, ?, ?)
            ON CONFLICT (app_key, device_id) DO UPDATE SET euid = excluded.euid
            """, appKey, deviceID, euid)
    }

    /// The EUID holding an identifier value in the app.
    func owner(_ db: Database, appKey: String, kind: IdentifierKind, value: String) throws -> String? {
        try db.value("SELECT euid FROM identities WHERE app_key = ? AND kind = ? AND value = ?",
                     appKey, kind.rawValue, value).string
    }

    /// An EUID is identified once it holds a user_id.
    func isIdentified(_ db: Database, euid: String) throws -> Bool {
        try db.value("SELECT 1 FROM identities WHERE euid = ? AND kind = 'user_id'", euid) != .null
    }

    /// Gives `euid` this identifier value, replacing the value of that kind it held before.
    func bind(_ db: Database, appKey: String, kind: IdentifierKind, value: String, euid: String) throws {
        try db.run("DELETE FROM identities WHERE euid = ? AND kind = ? AND value <> ?", euid, kind.rawValue, value)
        try db.run("""
            INSERT INTO identities (app_key, kind, value, euid) VALUES (?, ?, ?, ?)
            ON CONFLICT (app_key, kind, value) DO UPDATE SET euid = excluded.euid
            """, appKey, kind.rawValue, value, euid)
    }

    func identities(_ db: Database, euid: String) throws -> [IdentifierKind: String] {
        var result: [IdentifierKind: String] = [:]
        for row in try db.rows("SELECT kind, value FROM identities WHERE euid = ?", euid) {
            if let kind = row[0].string.flatMap(IdentifierKind.init(rawValue:)) { result[kind] = row[1].string }
        }
        return result
    }

    /// Moves everything `source` owns to `target`: identifiers, contacts, properties and channel values
    /// the target lacks (the target's own win, the source's others are dropped), all events and sessions,
    /// its installs and the devices bound to it. `source` then forwards to `target`, as does every EUID
    /// merged into it before.
    func merge(_ db: Database, _ source: String, into target: String) throws {
        try db.run("DELETE FROM identities WHERE euid = ? AND kind IN (SELECT kind FROM identities WHERE euid = ?)", source, target)
        try db.run("UPDATE identities SET euid = ? WHERE euid = ?", target, source)
        try db.run("DELETE FROM contacts WHERE euid = ? AND kind IN (SELECT kind FROM contacts WHERE euid = ?)", source, target)
        try db.run("UPDATE contacts SET euid = ? WHERE euid = ?", target, source)
        try db.run("DELETE FROM properties WHERE euid = ? AND name IN (SELECT name FROM properties WHERE euid = ?)", source, target)
        try db.run("UPDATE properties SET euid = ? WHERE euid = ?", target, source)
        try db.run("""
            DELETE FROM channel_values WHERE euid = ? AND channel_id IN (SELECT channel_id FROM channel_values WHERE euid = ?)
            """, source, target)
        try db.run("UPDATE channel_values SET euid = ? WHERE euid = ?", target, source)
        try db.run("UPDATE events SET euid = ? WHERE euid = ?", target, source)
        try db.run("UPDATE sessions SET euid = ? WHERE euid = ?", target, source)
        try db.run("UPDATE installs SET euid = ? WHERE euid = ?", target, source)
        try db.run("UPDATE OR IGNORE device_euids SET euid = ? WHERE euid = ?", target, source)
        try db.run("DELETE FROM device_euids WHERE euid = ?", source)
        try db.run("UPDATE euids SET merged_into = ? WHERE euid = ? OR merged_into = ?", target, source, source)
    }
}
