import JSON
import Schema
import SQLite

/// Tags and which devices carry them. `device_tags (tag, device)` answers "which devices carry this
/// tag" for audiences; each device row keeps its own tag names, so reading or changing a device's tags
/// costs one row, not an index range. Each tag row keeps its device count, so `tags.count` and
/// `tags.list` never scan the index; a tag whose last device leaves is removed.
///
/// Three things stay in memory, each tied to the store's transactions (a rolled-back request takes
/// its own back, `RollbackJournal`): each tag's id by app and name; how each tag's device count
/// changed since the batch began (a batch touches the same few hundred tags thousands of times, so
/// the counts are written once a tag, just before the batch commits, or before anything reads them);
/// and the `device_tags` entries to add or remove. Those are written in key order: one at a time,
/// at a random place each, every entry walked the index from its root through pages no longer in the
/// processor's cache, a sixth of the worker's time; in order, consecutive entries land on the pages
/// the one before just walked. Once `stagedEntryLimit` of them wait, they are sorted into a sweep
/// that the following commits write a step each, twice what each commit stages, so the sweep ends
/// before as many wait again. Written all in one commit, the 4,096 took that commit 15-20 ms of CPU
/// (getrusage around each batch) while every request behind it waited: at half the peak rate, the
/// p99. Everything waiting is written (`writeAudience`) before anything reads `device_tags`. The
/// index is derived (`AudienceIndex`): a crash loses what was staged and the next start builds it
/// again from `devices.tags`, as it would after any crash; a clean stop writes it first.
final class TagStore {
    /// Separates the names in `devices.tags`; no tag may contain it (TagRules' charset).
    static let separator: Character = "\n"
    /// Tag ids kept at most; past it the cache starts over.
    static let cachedIDLimit = 100_000
    /// `device_tags` entries staged at most before they are sorted into a sweep.
    static let stagedEntryLimit = 4096
    /// The fewest sweep entries a commit writes (when it staged fewer than half as many).
    static let sweepStep = 32

    private struct Name: Hashable {
        let app: String
        let tag: String
    }

    private let store: Store
    private var idsByName: [Name: Int64] = [:]
    private var namesByID: [Int64: Name] = [:]
    private var countChanges: [Int64: Int] = [:]
    /// `device_tags` entries not written yet: true to add, false to remove.
    private var staged: [Entry: Bool] = [:]
    /// Entries staged earlier, in key order, that the next commits write a step at a time; written
    /// before `staged`, which holds any later change to the same entry.
    private var sweep: Entries = []
    /// `staged.count` when the last commit ended: what a commit staged is the growth since.
    private var stagedAtLastCommit = 0
    /// What the open transaction changed in memory, undone from the newest when a level of it rolls
    /// back (`RollbackJournal`).
    private var changes: [Change] = []

    private enum Change {
        /// A tag's count moved by `by`.
        case counted(Int64, by: Int)
        /// A new tag's id was remembered.
        case remembered(Int64)
        /// The counts were written, and these were the changes held until then.
        case written([Int64: Int])
        /// An entry was staged; what was staged for it before (nil: nothing).
        case staged(Entry, was: Bool?)
        /// Entries were written or moved into a sweep; the sweep and staged entries before.
        case audienceWritten(sweep: Entries, staged: [Entry: Bool])
    }

    /// `device_tags` entries in the index's order, each true to add, false to remove.
    private typealias Entries = ArraySlice<(key: Entry, value: Bool)>

    /// One `device_tags` row, ordered as the index orders it.
    private struct Entry: Hashable, Comparable {
        let tag: Int64
        let device: Int64

        static func < (a: Entry, b: Entry) -> Bool { (a.tag, a.device) < (b.tag, b.device) }
    }

    init(store: Store) {
        self.store = store
        store.beforeCommit { [weak self] db in
            guard let self else { return }
            try writeCounts(db)
            try writeSweepStep(db)
        }
        store.keep(self)
    }

    /// The ids of the app's tags among `names` (those that exist).
    func ids(_ db: Database, appKey: String, names: [String]) throws -> [String: Int64] {
        var found: [String: Int64] = [:]
        for name in names { found[name] = try existingID(db, Name(app: appKey, tag: name)) }
        return found
    }

    /// The tags in a device row's `tags` text, sorted as SQLite sorts text (by UTF-8 bytes).
    static func names(in text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        // Split at the byte: a tag holds no line break, and splitting the Characters walks graphemes.
        return text.utf8.split(separator: separator.asciiValue!).map { String(decoding: $0, as: UTF8.self) }
            .sorted { $0.precedesInByteOrder($1) }
    }

    /// Binds `names`, none of them bound to the device yet (as its `devices.tags` says); returns them.
    func bind(_ db: Database, device: Int64, appKey: String, names: [String]) throws -> [String] {
        for name in names {
            let tag = try id(db, Name(app: appKey, tag: name))
            stage(Entry(tag: tag, device: device), bound: true)
            count(tag, by: 1)
        }
        return names
    }

    /// Unbinds `names`, all of them bound to the device (as its `devices.tags` says); returns those
    /// whose tag exists, sorted.
    func unbind(_ db: Database, device: Int64, appKey: String, names: [String]) throws -> [String] {
        var removed: [String] = []
        for name in names.sorted() {
            guard let tag = try existingID(db, Name(app: appKey, tag: name)) else { continue }
            stage(Entry(tag: tag, device: device), bound: false)
            count(tag, by: -1)
            removed.append(name)
        }
        return removed
    }

    /// Unbinds every tag of the device (as its entry says); returns those whose tag exists, sorted.
    func unbindAll(_ db: Database, device: DeviceIndex.Entry) throws -> [String] {
        try unbind(db, device: device.id, appKey: device.appKey, names: device.tags)
    }

    /// Writes every waiting `device_tags` entry, the sweep's then the staged ones, each in the
    /// index's order. Runs before anything reads `device_tags`; inside a write.
    func writeAudience(_ db: Database) throws {
        guard !sweep.isEmpty || !staged.isEmpty else { return }
        record(.audienceWritten(sweep: sweep, staged: staged))
        try write(sweep, db)
        try write(takeStaged(), db)
        sweep = []
    }

    /// Before a commit: sorts the staged entries into a sweep once `stagedEntryLimit` wait and none
    /// is under way, then writes the sweep's next step, twice what this commit staged and at least
    /// `sweepStep`.
    private func writeSweepStep(_ db: Database) throws {
        let stagedNow = max(0, staged.count - stagedAtLastCommit)
        stagedAtLastCommit = staged.count
        if sweep.isEmpty && staged.count < Self.stagedEntryLimit { return }
        record(.audienceWritten(sweep: sweep, staged: staged))
        if sweep.isEmpty { sweep = takeStaged() }
        let step = sweep.prefix(max(Self.sweepStep, 2 * stagedNow))
        try write(step, db)
        sweep = sweep.dropFirst(step.count)
    }

    /// The staged entries in the index's order, no longer staged.
    private func takeStaged() -> Entries {
        defer {
            staged = [:]
            stagedAtLastCommit = 0
        }
        return staged.sorted(by: { $0.key < $1.key })[...]
    }

    private func write(_ entries: Entries, _ db: Database) throws {
        for (entry, bound) in entries {
            if bound {
                try db.run("INSERT OR IGNORE INTO device_tags (tag, device) VALUES (?, ?)", entry.tag, entry.device)
            } else {
                try db.run("DELETE FROM device_tags WHERE tag = ? AND device = ?", entry.tag, entry.device)
            }
        }
    }

    /// Every tag of the app with its device count, by name.
    func list(_ db: Database, appKey: String) throws -> [(name: String, devices: Int)] {
        try writeCounts(db)
        return try db.rows("SELECT name, devices FROM tags WHERE app_key = ? ORDER BY name", appKey)
            .map { (name: $0[0].string ?? "", devices: $0[1].int ?? 0) }
    }

    /// How many devices carry the app's tag `name` (0 when none does).
    func devices(_ db: Database, appKey: String, name: String) throws -> Int {
        try writeCounts(db)
        return try db.value("SELECT devices FROM tags WHERE app_key = ? AND name = ?", appKey, name).int ?? 0
    }

    /// Writes the count changes held in memory, and removes the tags left with no device. Runs
    /// before each commit and before counts are read; inside a write whenever there is anything to write.
    func writeCounts(_ db: Database) throws {
        guard !countChanges.isEmpty else { return }
        let changes = countChanges
        for (tag, change) in changes.sorted(by: { $0.key < $1.key }) {
            if change != 0 { try db.run("UPDATE tags SET devices = devices + ? WHERE id = ?", change, tag) }
            // A count that grew cannot have reached 0. No `RETURNING` to learn it: SQLite builds a
            // temporary table for one (11 allocations a tag, measured with dhat).
            if change <= 0, try db.run("DELETE FROM tags WHERE id = ? AND devices <= 0", tag) == 1 {
                forget(tag)
            }
        }
        countChanges = [:]
        record(.written(changes))
    }

    // MARK: in memory

    /// The tag's id, creating the tag when the app has none of that name.
    private func id(_ db: Database, _ name: Name) throws -> Int64 {
        if let id = try existingID(db, name) { return id }
        try db.run("INSERT INTO tags (app_key, name) VALUES (?, ?)", name.app, name.tag)
        let id = db.lastInsertRowID
        remember(id, name)
        return id
    }

    private func existingID(_ db: Database, _ name: Name) throws -> Int64? {
        if let known = idsByName[name] { return known }
        guard let found = try db.value("SELECT id FROM tags WHERE app_key = ? AND name = ?", name.app, name.tag).int else {
            return nil
        }
        remember(Int64(found), name)
        return Int64(found)
    }

    private func remember(_ id: Int64, _ name: Name) {
        if idsByName.count >= Self.cachedIDLimit {
            idsByName = [:]
            namesByID = [:]
        }
        idsByName[name] = id
        namesByID[id] = name
        record(.remembered(id))
    }

    /// Drops a tag from the id cache; always safe, as a missing id is read again.
    private func forget(_ id: Int64) {
        guard let name = namesByID.removeValue(forKey: id) else { return }
        idsByName[name] = nil
    }

    /// An entry to add (`bound`) or remove: one staged the other way cancels out, as the row is
    /// (or is not) in the index already.
    private func stage(_ entry: Entry, bound: Bool) {
        let was = staged[entry]
        staged[entry] = was == !bound ? nil : bound
        record(.staged(entry, was: was))
    }

    private func count(_ tag: Int64, by change: Int) {
        countChanges[tag, default: 0] += change
        record(.counted(tag, by: change))
    }
}

extension TagStore: RollbackJournal {
    /// Logs `change` when a write is open; outside one there is nothing to roll back.
    private func record(_ change: Change) {
        if store.isWriting { changes.append(change) }
    }

    var journalMark: Int { changes.count }

    func rollBack(to mark: Int) {
        while changes.count > mark {
            switch changes.removeLast() {
            case .counted(let tag, let change): countChanges[tag, default: 0] -= change
            case .remembered(let id): forget(id)
            case .written(let held): countChanges = held
            case .staged(let entry, let was): staged[entry] = was
            case .audienceWritten(let sweep, let staged):
                self.sweep = sweep
                self.staged = staged
            }
        }
    }

    func journalCommitted() { changes.removeAll(keepingCapacity: true) }
}
