import Caches

/// Token buckets by key (an app, a peer address): each holds up to `burst` tokens and refills at
/// `perSecond`, so a short burst passes and a sustained excess is refused. Owned by one thread (the
/// gateway's broker, the api's HTTP loop). A bucket unused for a whole refill time is full again, the same as none, so buckets are
/// forgotten a generation at a time once that long has passed (`RotatingDictionary`): memory follows
/// the keys active in the last two refill times, and nothing is lost.
public struct TokenBuckets<Key: Hashable>: Sendable where Key: Sendable {
    public let perSecond: Double
    public let burst: Double
    private var buckets: RotatingDictionary<Key, (tokens: Double, at: Int64)>

    public init(perSecond: Int, burst: Int) {
        self.perSecond = Double(perSecond)
        self.burst = Double(burst)
        // A bucket is full again this long after its last use. (A rate of 0 is made but never asked:
        // its owners take 0 for no limit.)
        let refillMilliseconds = perSecond > 0 ? (Double(burst) / Double(perSecond) * 1000).rounded(.up) : 1000
        buckets = RotatingDictionary(period: max(1, Int64(refillMilliseconds)))
    }

    /// Takes a token for `key` at monotonic millisecond `now`; false when none is left.
    public mutating func allow(_ key: Key, now: Int64) -> Bool {
        let (burst, perSecond) = (burst, perSecond)
        return buckets.update(key, now: now, make: { (burst, now) }) { bucket in
            bucket.tokens = min(burst, bucket.tokens + Double(now - bucket.at) * perSecond / 1000)
            bucket.at = now
            guard bucket.tokens >= 1 else { return false }
            bucket.tokens -= 1
            return true
        }
    }

    public var count: Int { buckets.count }
}
