import SQLite
import Schema
import Worker

/// The devices the tagging service has seen, with their app and alias. A device is recorded on its
/// first write here (the registration service owns devices; tagging never reads its database), and
/// the app it was first seen with is the only one that may touch it.
struct DeviceIndex {
    struct Entry {
        let id: Int64
        let appKey: String
        let alias: String?
        /// `devices.tags` as stored; `tags` splits it.
        let tagText: String

        /// The device's tags, sorted as SQLite sorts text (by UTF-8 bytes).
        var tags: [String] { TagStore.names(in: tagText) }
    }

    /// The device's entry with its tags: one row read, as every tag command starts with it.
    func find(_ db: Database, registrationID: String) throws -> Entry? {
        guard let row = try db.row("SELECT id, app_key, alias, tags FROM devices WHERE registration_id = ?", registrationID) else {
            return nil
        }
        return Entry(id: Int64(row[0].int ?? 0), appKey: row[1].string ?? "", alias: row[2].string, tagText: row[3].string ?? "")
    }

    /// The device's entry, created on first use unless `mayCreate` is false (its app's server names
    /// it: only a device's own request, whose proof registration's secret made, may make it known); 1008 when it belongs to another app, or when it was
    /// deleted (whoever signed: a deleted device never comes back).
    func entry(_ db: Database, registrationID: String, appKey: String, mayCreate: Bool = true) throws -> Entry {
        if let found = try existing(db, registrationID: registrationID, appKey: appKey, mayCreate: mayCreate) { return found }
        return try create(db, registrationID: registrationID, appKey: appKey)
    }

    /// The device's entry, or nil when it has none yet and one may be made: `entry`'s checks (1008
    /// for another app's device or a deleted one, 6017 where none may be made), nothing written. A
    /// request that may still be refused makes its entry only once it will not be.
    func existing(_ db: Database, registrationID: String, appKey: String, mayCreate: Bool) throws -> Entry? {
        if let found = try find(db, registrationID: registrationID) {
            guard found.appKey == appKey else { throw CommandError(.appKeyInvalid, "registration_id belongs to another app_key") }
            return found
        }
        guard try !Tombstones.contains(db, registrationID: registrationID) else { throw Tombstones.refusal }
        guard mayCreate else { throw CommandError.invalid("unknown registration_id: no device of this app_key is registered with it") }
        return nil
    }

    /// Makes the entry of a device that has none (see `existing`).
    func create(_ db: Database, registrationID: String, appKey: String) throws -> Entry {
        try db.run("INSERT INTO devices (registration_id, app_key) VALUES (?, ?)", registrationID, appKey)
        return Entry(id: db.lastInsertRowID, appKey: appKey, alias: nil, tagText: "")
    }

    func setAlias(_ db: Database, device: Int64, alias: String?) throws {
        try db.run("UPDATE devices SET alias = ? WHERE id = ?", alias, device)
    }

    /// Devices of `appKey` bound to `alias`, oldest first.
    func devices(_ db: Database, appKey: String, alias: String) throws -> [String] {
        try db.rows("SELECT registration_id FROM devices WHERE app_key = ? AND alias = ? ORDER BY id", appKey, alias)
            .compactMap { $0[0].string }
    }

    func countDevices(_ db: Database, appKey: String, alias: String) throws -> Int {
        try db.value("SELECT COUNT(*) FROM devices WHERE app_key = ? AND alias = ?", appKey, alias).int ?? 0
    }

    func delete(_ db: Database, device: Int64) throws {
        try db.run("DELETE FROM devices WHERE id = ?", device)
    }
}
