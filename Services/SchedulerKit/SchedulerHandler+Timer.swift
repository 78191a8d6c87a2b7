import Foundation
import Schema
import SQLite

/// Firing: the worker loop asks `nextTick()` when the earliest request is due and calls
/// `tick(now:in:)` then, inside a write transaction whose commit comes before the events are published.
extension SchedulerHandler {
    /// Most requests fired in one tick (one transaction), so requests are served between ticks of a burst.
    static let firesPerTick = 500

    public func nextTick() -> Date? {
        if timer.wantsTick { return .distantPast }
        return timer.nextDue.map { Date(timeIntervalSince1970: $0) }
    }

    public func tick(now date: Date, in db: Database) throws {
        let now = date.timeIntervalSince1970
        try timer.prepareTick(db, requests)
        var fired = 0
        while fired < Self.firesPerTick, let entry = timer.popDue(at: now) {
            guard let row = try requests.pending(db, id: entry.id), row.nextFireAt == entry.due else {
                timer.popped(entry, live: false)
                continue
            }
            timer.popped(entry, live: true)
            try fire(db, row, due: entry.due, now: now)
            fired += 1
        }
    }

    /// Fires a due request, or marks a one-shot missed when it is later than the lateness window;
    /// a repeating one fires once if any of its occurrences falls in that window, then goes on
    /// from `now`.
    private func fire(_ db: Database, _ row: PendingRow, due: Double, now: Double) throws {
        let schedule: Schedule
        do { schedule = try self.schedule(of: row) } catch {
            logger.error("stored request unreadable, marked missed", ["id": row.id, "error": error])
            try requests.recordDelivered(db, row, firedAt: nil, dueAt: due, keep: settings.deliveredHistory)
            try requests.deletePending(db, id: row.id)
            return
        }
        let windowStart = now - settings.lateness
        guard schedule.repeats else {
            if due >= windowStart {
                try deliver(db, row, due: due, now: now, next: nil)
            } else {
                try requests.recordDelivered(db, row, firedAt: nil, dueAt: due, keep: settings.deliveredHistory)
            }
            try requests.deletePending(db, id: row.id)
            return
        }
        let next = schedule.occurrence(after: now, due: due)
        let firstInWindow = due >= windowStart ? due : schedule.occurrence(after: windowStart, due: due)
        if let firstInWindow, firstInWindow <= now {
            try deliver(db, row, due: firstInWindow, now: now, next: next)
        }
        if let next {
            try requests.reschedule(db, id: row.id, nextFireAt: next)
            timer.schedule(id: row.id, at: next)
        } else {
            try requests.deletePending(db, id: row.id)
        }
    }
}
