/// The last event sequence seen from each publisher, to notice events that never arrived.
struct SequenceTracker {
    private var last: [String: Int64] = [:]

    /// Records `sequence` from `publisher`; returns how many events were skipped before it
    /// (0 for the first event seen from a publisher or an event in order).
    mutating func record(publisher: String, sequence: Int64) -> Int64 {
        defer { last[publisher] = max(last[publisher] ?? 0, sequence) }
        guard let previous = last[publisher], sequence > previous + 1 else { return 0 }
        return sequence - previous - 1
    }
}
