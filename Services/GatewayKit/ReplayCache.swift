/// The proofs seen within the clock window, so the same signed request cannot be played twice.
/// Entries older than the window are swept as the cache grows; a proof that old is refused by its
/// timestamp anyway.
struct ReplayCache {
    let window: Int64
    private var seen: [String: Int64] = [:]
    private var sweepAt = 100_000

    init(window: Int64) { self.window = window }

    /// Records `signature` made at `ts`; false when it was seen before.
    mutating func insert(_ signature: String, ts: Int64, now: Int64) -> Bool {
        guard seen.updateValue(ts, forKey: signature) == nil else { return false }
        if seen.count > sweepAt {
            seen = seen.filter { now - $0.value <= window }
            sweepAt = max(100_000, seen.count * 2)
        }
        return true
    }
}
