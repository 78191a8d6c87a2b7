import SQLite

/// The scheduler's one timer: every timed pending request in a `FireQueue` ordered by fire time,
/// loaded from the database at start, so a tick pops what is due and never scans the table.
/// Stale entries (updated, removed or forgotten requests) are dropped when popped; when they come
/// to outnumber the live ones the queue is reloaded. Entries a tick popped are kept until the next
/// tick has checked that the tick's transaction committed, and put back if it did not.
struct FireTimer {
    private var queue = FireQueue()
    private var unconfirmed: [FireQueue.Entry] = []
    private var stale = 0

    /// Rows read per query while loading.
    static let pageSize = 10_000
    /// Stale entries tolerated before a reload, whatever the queue's size.
    static let staleFloor = 10_000

    /// The earliest fire time queued.
    var nextDue: Double? { queue.first?.due }
    var count: Int { queue.count }

    /// True when the next tick has housekeeping to do now (confirming, reloading).
    var wantsTick: Bool { !unconfirmed.isEmpty || needsReload }

    private var needsReload: Bool { stale >= Self.staleFloor && stale * 2 > queue.count }

    /// Replaces the queue with the timed requests the database holds.
    mutating func load(_ db: Database, _ requests: LocalStore) throws {
        var entries: [FireQueue.Entry] = []
        var last: Int64 = 0
        while true {
            let page = try requests.timers(db, after: last, limit: Self.pageSize)
            entries += page
            guard page.count == Self.pageSize, let end = page.last else { break }
            last = end.id
        }
        queue = FireQueue(entries)
        unconfirmed = []
        stale = 0
    }

    /// Runs at the start of a tick, in a fresh transaction: puts back the entries of a previous tick
    /// whose commit failed (the database still shows them due), and reloads when stale entries dominate.
    mutating func prepareTick(_ db: Database, _ requests: LocalStore) throws {
        for entry in unconfirmed {
            if try requests.nextFireAt(db, id: entry.id) == entry.due { queue.push(entry) }
        }
        unconfirmed = []
        if needsReload { try load(db, requests) }
    }

    mutating func schedule(id: Int64, at due: Double) {
        queue.push(FireQueue.Entry(due: due, id: id))
    }

    /// Counts entries left behind by an update or removal.
    mutating func noteStale(_ count: Int = 1) { stale += count }

    /// The next entry due at `now`, or nil.
    mutating func popDue(at now: Double) -> FireQueue.Entry? { queue.popDue(at: now) }

    /// Records what a popped entry turned out to be: live ones are checked at the next tick.
    mutating func popped(_ entry: FireQueue.Entry, live: Bool) {
        if live { unconfirmed.append(entry) } else { stale = max(0, stale - 1) }
    }
}
