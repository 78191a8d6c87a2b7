import Caches

/// At most `limit` calls per key in any `window` seconds (a sliding window of call times).
/// In memory: a device is always served by the same shard, so its counts live in one process
/// (a restart forgets them, which only ever lets a few more calls through).
public struct RateLimiter: Sendable {
    public let limit: Int
    public let window: Double
    /// Each key's recent call times; keys with none left in the window are swept as they pile up.
    private var calls = SweptDictionary<String, [Double]>()

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
        calls.sweepIfLarge { $0.contains { now - $0 < window } }
        return true
    }

    /// How many keys are remembered (for tests and metrics).
    public var trackedKeys: Int { calls.count }
}
