import Caches

/// At most `limit` calls per key in any `window` seconds (a sliding window of call times).
/// In memory: a device is always served by the same shard, so its counts live in one process
/// (a restart forgets them, which only ever lets a few more calls through).
///
/// Each key is kept by a 64-bit hash of it (seeded at random per process, so nobody can choose two
/// keys that share one; if two ever did, they would share a limit), with its last `limit` call
/// times inline: an entry holds no reference, so forgetting a generation of keys frees one buffer
/// (`RotatingDictionary`), and a call allocates nothing.
public struct RateLimiter: Sendable {
    /// The most calls a window can allow: the call times an entry holds inline.
    public static let maximumLimit = 16
    public let limit: Int
    public let window: Double
    /// Keys unused for a whole window have no call left in it: their generation is dropped.
    private var calls: RotatingDictionary<Int, RecentCalls>

    public init(limit: Int, window: Double) {
        precondition((1...Self.maximumLimit).contains(limit), "a rate limit is 1 to \(Self.maximumLimit) calls")
        self.limit = limit
        self.window = window
        calls = RotatingDictionary(period: Self.milliseconds(window))
    }

    /// Records a call at `now` (seconds) and returns true, or returns false when over the limit.
    public mutating func allow(_ key: String, now: Double) -> Bool {
        let (limit, window) = (limit, window)
        return calls.update(key.hashValue, now: Self.milliseconds(now), make: RecentCalls.init) { recent in
            recent.admit(at: now, limit: limit, window: window)
        }
    }

    /// Takes back the last call `allow` recorded for `key` at `now`: for a call whose whole
    /// transaction rolled back, so it never happened. Calls taken back newest first restore the
    /// limiter as it was.
    public mutating func takeBack(_ key: String, now: Double) {
        let limit = limit
        calls.update(key.hashValue, now: Self.milliseconds(now), make: RecentCalls.init) { $0.takeBackLast(limit: limit) }
    }

    /// How many keys are remembered (for tests and metrics).
    public var trackedKeys: Int { calls.count }

    private static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded(.up)) }
}

/// A key's last calls allowed, in a ring of `limit` of its `RateLimiter.maximumLimit` places; a
/// place never used holds -infinity, which no window reaches.
struct RecentCalls: Sendable {
    private var times = InlineArray<16, Double>(repeating: -.infinity)
    private var next = 0

    /// Records a call at `now` when fewer than `limit` of the calls kept fall within `window`
    /// seconds of it. Refused calls are not recorded, so the calls in any window are at most
    /// `limit`: keeping the last `limit` keeps every one that counts.
    mutating func admit(at now: Double, limit: Int, window: Double) -> Bool {
        var recent = 0
        for index in 0..<limit where now - times[index] < window { recent += 1 }
        guard recent < limit else { return false }
        times[next] = now
        next = (next + 1) % limit
        return true
    }

    /// Forgets the call `admit` recorded last.
    mutating func takeBackLast(limit: Int) {
        next = (next + limit - 1) % limit
        times[next] = -.infinity
    }
}
