import Schema
import SQLite

/// Erases one MA user for the right to erasure (`ma.erase`): the EUID and every EUID merged into it,
/// with their identifiers, contact details, properties, channel values, events, sessions, installs
/// and device bindings. The hourly counts of `stats.events` name no user and keep what the user
/// contributed. Runs on the `Database` of the caller's transaction, so it is all or nothing.
struct UserErasure {
    func erase(_ db: Database, euid: String) throws -> MAErased {
        let family = "(SELECT euid FROM euids WHERE euid = ?1 OR merged_into = ?1)"
        func delete(_ table: String) throws -> Int {
            try db.run("DELETE FROM \(table) WHERE euid IN \(family)", euid)
        }
        var erased = MAErased()
        erased.identities = try delete("identities")
        erased.contacts = try delete("contacts")
        erased.properties = try delete("properties")
        erased.channelValues = try delete("channel_values")
        erased.events = try delete("events")
        erased.sessions = try delete("sessions")
        erased.installs = try delete("installs")
        erased.devices = try delete("device_euids")
        erased.euids = try db.run("DELETE FROM euids WHERE euid = ?1 OR merged_into = ?1", euid)
        return erased
    }
}
