/// Counts something that may happen thousands of times a second (hostile traffic) and reports it
/// at most once a second, with how many happened since the last report, so logging it cannot
/// flood the log.
struct ThrottledCount {
    private var count = 0
    private var reportedAt: Int64?

    /// Counts one; calls `report` with the count when a second has passed since the last report.
    mutating func note(now: Int64, _ report: (Int) -> Void) {
        count += 1
        if let reportedAt, now - reportedAt < 1000 { return }
        report(count)
        count = 0
        reportedAt = now
    }
}
