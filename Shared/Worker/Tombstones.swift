import Foundation
import Schema
import SQLite

/// Registration IDs that were deleted, kept for good in each service's database. A device secret is
/// derived, so it cannot be revoked: once its device is deleted, the worker refuses every request
/// the device signs (1008 "device deleted"), and nothing it sends can bring it back into tags,
/// aliases, badges, schedules or analytics. Subscribers learn of a deletion from `device.deleted`
/// (the event subscription records it before the handler forgets the device); `registration`
/// records its own in the transaction that deletes the device.
public enum Tombstones {
    public static let migration = Migration("tombstones-1", """
        CREATE TABLE tombstones (registration_id TEXT PRIMARY KEY, deleted_at REAL NOT NULL) WITHOUT ROWID;
        """)

    public static func record(_ db: Database, registrationID: String, now: Double = Date().timeIntervalSince1970) throws {
        try db.run("INSERT OR IGNORE INTO tombstones (registration_id, deleted_at) VALUES (?, ?)", registrationID, now)
    }

    public static func contains(_ db: Database, registrationID: String) throws -> Bool {
        try db.value("SELECT 1 FROM tombstones WHERE registration_id = ?", registrationID) != .null
    }

    /// What a request signed by a deleted device gets.
    public static let refusal = CommandError(.appKeyInvalid, "device deleted")
}
