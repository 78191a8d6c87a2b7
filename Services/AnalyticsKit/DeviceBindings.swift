import SQLite

/// Which EUIDs each device (registration ID) may act on. A request a device signs may name only an
/// EUID bound to it, and its own signed `ma.start` or `ma.identify` binds it the EUID they answer;
/// the one bound last is the device's current EUID, which its `ma.start` returns. Bindings follow
/// merges (`IdentityStore.merge`), and go with the device (`device.deleted`) or the user
/// (`ma.erase`). Every method runs on the `Database` of the caller's transaction.
struct DeviceBindings {
    /// Binds `euid` to the device as its current EUID (again, when it was bound before).
    func bind(_ db: Database, registrationID: String, euid: String) throws {
        try db.run("""
            INSERT INTO device_euids (registration_id, euid, bound_order)
            VALUES (?, ?, (SELECT COALESCE(MAX(bound_order), 0) + 1 FROM device_euids WHERE registration_id = ?))
            ON CONFLICT (registration_id, euid) DO UPDATE SET bound_order = excluded.bound_order
            """, registrationID, euid, registrationID)
    }

    /// The EUID bound to the device last, or nil when it has none.
    func current(_ db: Database, registrationID: String) throws -> String? {
        try db.value("SELECT euid FROM device_euids WHERE registration_id = ? ORDER BY bound_order DESC LIMIT 1",
                     registrationID).string
    }

    func isBound(_ db: Database, registrationID: String, euid: String) throws -> Bool {
        try db.value("SELECT 1 FROM device_euids WHERE registration_id = ? AND euid = ?", registrationID, euid) != .null
    }

    /// Forgets a deleted device's bindings.
    func forget(_ db: Database, registrationID: String) throws {
        try db.run("DELETE FROM device_euids WHERE registration_id = ?", registrationID)
    }
}
