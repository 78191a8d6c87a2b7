/// At most `limit` calls per key in any `window` seconds (a sliding window of call times).
/// In memory: a device is always served by the same shard, so its counts live in one process
/// (a restart forgets them, which only ever lets a few more calls through).
public struct RateLimiter: Sendable {
    public let limit: Int
    public let window: Double
    private var calls: [String: [Double]] = [:]
    /// Keys held before stale ones are swept; doubles with the live keys so sweeping stays amortized O(1).
    private var sweepAt = 100_000

    public init(limit: Int, window: Double) {
        self.limit = limit
        self.window = window
    }

    /// Records a call at `now` (seconds) and returns true, or returns false when over the limit.
    public mutating func allow(_ key: String, now: Double) -> Bool {
        var recent = (calls[key] ?? []).filter { now - $0 < window }
        guard recent.count < limit else {
            calls[key] = recent
            return false
        }
        recent.append(now)
        calls[key] = recent
        if calls.count > sweepAt { sweep(now: now) }
        return true
    }

    /// How many keys are remembered (for tests and metrics).
    public var trackedKeys: Int { calls.count }

    private mutating func sweep(now: Double) {
        calls = calls.filter { entry in entry.value.contains { now - $0 < window } }
        sweepAt = max(100_000, calls.count * 2)
    }
}
