import SQLite

/// Splits an EUID's events into sessions: a gap longer than the app's timeout between two events starts
/// a new session. Events may arrive late and out of order (the SDK caches them offline), so each batch's
/// times are cut into runs, and a run joins, or bridges, the stored sessions within the timeout of it.
struct SessionTracker {
    let events: EventStore

    /// Events of a batch close enough in time to belong to one session.
    struct Run: Equatable {
        var start: Double
        var end: Double
        var count: Int
    }

    /// `times` sorted and cut wherever the gap between neighbours is longer than `timeout`.
    static func runs(_ times: [Double], timeout: Double) -> [Run] {
        var runs: [Run] = []
        for time in times.sorted() {
            if let last = runs.last, time - last.end <= timeout {
                runs[runs.count - 1].end = time
                runs[runs.count - 1].count += 1
            } else {
                runs.append(Run(start: time, end: time, count: 1))
            }
        }
        return runs
    }

    func record(_ db: Database, times: [Double], euid: String, appKey: String, timeout: Double) throws {
        for run in Self.runs(times, timeout: timeout) {
            let near = try events.sessions(db, euid: euid, from: run.start - timeout, to: run.end + timeout)
            guard var joined = near.first else {
                try events.insertSession(db, euid: euid, appKey: appKey, start: run.start, end: run.end, events: run.count)
                continue
            }
            joined.start = min(joined.start, run.start)
            joined.end = max(joined.end, run.end)
            joined.events += run.count
            for other in near.dropFirst() {
                joined.end = max(joined.end, other.end)
                joined.events += other.events
                try events.deleteSession(db, id: other.id)
            }
            try events.updateSession(db, joined)
        }
    }
}
