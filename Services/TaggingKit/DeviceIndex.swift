import Caches
import SQLite
import Schema
import Worker

/// The devices the tagging service has seen, with their app, alias and tags. A device is recorded on
/// its first write here (the registration service owns devices; tagging never reads its database),
/// and the app it was first seen with is the only one that may touch it.
///
/// Every tag and alias command starts by reading its device's row, so the entries read or written
/// stay in memory by registration ID: a command on a device seen before reads no row. Every change
/// to a row goes through here, and every entry kept inside a write is logged, read or written, so a
/// rolled-back request takes its own back (`RollbackJournal`). A read too: a batch's first run has
/// no savepoints (`Store.writeBatch`), so a request that failed after writing leaves its rows until
/// the whole batch rolls back, and a later request of the batch may read them. A device not found
/// is looked for again.
///
/// Past its limit (`--device-cache`) the cache starts over (`StartOverCache`, which keeps its room),
/// which is always safe: what is missing is read again.
final class DeviceIndex {
    struct Entry {
        let id: Int64
        let registrationID: String
        let appKey: String
        var alias: String?
        /// `devices.tags` as stored; `tags` splits it.
        var tagText: String

        /// The device's tags, sorted as SQLite sorts text (by UTF-8 bytes).
        var tags: [String] { TagStore.names(in: tagText) }
    }

    private let store: Store
    private var cached: StartOverCache<String, Entry>
    /// What the open transaction changed in the cache, by registration ID, with what the cache held
    /// before (nil: nothing); undone from the newest when a level of it rolls back.
    private var changes: [(registrationID: String, was: Entry?)] = []

    init(store: Store, cachedEntryLimit: Int) {
        self.store = store
        cached = StartOverCache(limit: cachedEntryLimit)
        store.keep(self)
    }

    /// The device's entry with its tags: from memory, or one row read.
    func find(_ db: Database, registrationID: String) throws -> Entry? {
        if let known = cached[registrationID] { return known }
        guard let row = try db.row("SELECT id, app_key, alias, tags FROM devices WHERE registration_id = ?", registrationID) else {
            return nil
        }
        let entry = Entry(id: Int64(row[0].int ?? 0), registrationID: registrationID, appKey: row[1].string ?? "",
                          alias: row[2].string, tagText: row[3].string ?? "")
        record(registrationID, as: entry)
        return entry
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
        let entry = Entry(id: db.lastInsertRowID, registrationID: registrationID, appKey: appKey, alias: nil, tagText: "")
        record(registrationID, as: entry)
        return entry
    }

    func setAlias(_ db: Database, device: Entry, alias: String?) throws {
        try db.run("UPDATE devices SET alias = ? WHERE id = ?", alias, device.id)
        var changed = device
        changed.alias = alias
        record(device.registrationID, as: changed)
    }

    /// Records the device's tags after a change (in any order: `TagStore.names(in:)` sorts them).
    func setTags(_ db: Database, device: Entry, to names: some Sequence<String>) throws {
        let text = names.joined(separator: String(TagStore.separator))
        try db.run("UPDATE devices SET tags = ? WHERE id = ?", text, device.id)
        var changed = device
        changed.tagText = text
        record(device.registrationID, as: changed)
    }

    func delete(_ db: Database, device: Entry) throws {
        try db.run("DELETE FROM devices WHERE id = ?", device.id)
        record(device.registrationID, as: nil)
    }

    /// Devices of `appKey` bound to `alias`, oldest first.
    func devices(_ db: Database, appKey: String, alias: String) throws -> [String] {
        try db.rows("SELECT registration_id FROM devices WHERE app_key = ? AND alias = ? ORDER BY id", appKey, alias)
            .compactMap { $0[0].string }
    }

    func countDevices(_ db: Database, appKey: String, alias: String) throws -> Int {
        try db.value("SELECT COUNT(*) FROM devices WHERE app_key = ? AND alias = ?", appKey, alias).int ?? 0
    }

    // MARK: in memory

    /// The row of `registrationID` as just read or written (nil: deleted): kept, and logged with
    /// what the cache held before when inside a write.
    private func record(_ registrationID: String, as entry: Entry?) {
        if store.isWriting { changes.append((registrationID, cached[registrationID])) }
        put(entry, for: registrationID)
    }

    private func put(_ entry: Entry?, for registrationID: String) {
        if let entry { cached.insert(entry, forKey: registrationID) } else { cached.removeValue(forKey: registrationID) }
    }
}

extension DeviceIndex: RollbackJournal {
    var journalMark: Int { changes.count }

    func rollBack(to mark: Int) {
        while changes.count > mark {
            let (registrationID, was) = changes.removeLast()
            put(was, for: registrationID)
        }
    }

    func journalCommitted() { changes.removeAll(keepingCapacity: true) }
}
