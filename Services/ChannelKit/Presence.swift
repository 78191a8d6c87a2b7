import Schema
import SQLite

/// Where each device is connected and which page its app shows: the presence table's queries.
/// Every method runs on the `Database` of the caller's transaction.
struct Presence {
    struct Record {
        let appKey: String
        let at: LiveConnection?
        let page: String?
        let lastOnline: Double?
    }

    func record(_ db: Database, registrationID: String) throws -> Record? {
        guard let row = try db.row("SELECT app_key, host, boot, connection, page, last_online FROM presence WHERE registration_id = ?",
                                   registrationID) else { return nil }
        var at: LiveConnection?
        if let host = row[1].int, let boot = row[2].string, case .integer(let connection) = row[3] {
            at = LiveConnection(host: host, boot: boot, connection: UInt64(bitPattern: connection))
        }
        return Record(appKey: row[0].string ?? "", at: at, page: row[4].string, lastOnline: row[5].double)
    }

    /// The device is connected at `at` now; its page is unknown until it reports one.
    func attach(_ db: Database, registrationID: String, appKey: String, at: LiveConnection, now: Double) throws {
        try db.run("""
            INSERT INTO presence (registration_id, app_key, host, boot, connection, page, last_online) VALUES (?, ?, ?, ?, ?, NULL, ?)
            ON CONFLICT (registration_id) DO UPDATE SET app_key = excluded.app_key, host = excluded.host, boot = excluded.boot,
                connection = excluded.connection, page = NULL, last_online = excluded.last_online
            """, registrationID, appKey, at.host, at.boot, Int64(bitPattern: at.connection), now)
    }

    /// The connection `at` ended; true when it was the device's current one.
    func detach(_ db: Database, registrationID: String, at: LiveConnection, now: Double) throws -> Bool {
        try db.run("""
            UPDATE presence SET host = NULL, boot = NULL, connection = NULL, page = NULL, last_online = ?
            WHERE registration_id = ? AND host = ? AND boot = ? AND connection = ?
            """, now, registrationID, at.host, at.boot, Int64(bitPattern: at.connection)) > 0
    }

    /// Every connection channel process `host` held before it started as `boot` is gone.
    func reset(_ db: Database, host: Int, boot: String, now: Double) throws {
        try db.run("""
            UPDATE presence SET host = NULL, boot = NULL, connection = NULL, page = NULL, last_online = ?
            WHERE host = ? AND boot != ?
            """, now, host, boot)
    }

    /// The page the device's app shows now (nil: none); stored for a device not connected too, whose
    /// SDK reports over the request path.
    func setPage(_ db: Database, registrationID: String, appKey: String, page: String?) throws {
        try db.run("""
            INSERT INTO presence (registration_id, app_key, page) VALUES (?, ?, ?)
            ON CONFLICT (registration_id) DO UPDATE SET page = excluded.page
            """, registrationID, appKey, page)
    }

    func forget(_ db: Database, registrationID: String) throws {
        try db.run("DELETE FROM presence WHERE registration_id = ?", registrationID)
    }
}
