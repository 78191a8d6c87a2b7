import Caches

/// Token buckets by key (an app, a peer address): each holds up to `burst` tokens and refills at
/// `perSecond`, so a short burst passes and a sustained excess is refused. Owned by the broker's
/// thread. As the map grows, buckets that have refilled are swept: a full bucket is the same as
/// none, so the sweep forgets nothing, and memory follows the keys active in the last refill time.
struct TokenBuckets<Key: Hashable> {
    let perSecond: Double
    let burst: Double
    /// Buckets full again are dropped as they pile up.
    private var buckets = SweptDictionary<Key, (tokens: Double, at: Int64)>()

    init(perSecond: Int, burst: Int) {
        self.perSecond = Double(perSecond)
        self.burst = Double(burst)
    }

    /// Takes a token for `key` at monotonic millisecond `now`; false when none is left.
    mutating func allow(_ key: Key, now: Int64) -> Bool {
        var bucket = buckets[key] ?? (burst, now)
        bucket.tokens = min(burst, bucket.tokens + Double(now - bucket.at) * perSecond / 1000)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[key] = bucket
            return false
        }
        bucket.tokens -= 1
        buckets[key] = bucket
        let refill = Int64((burst / perSecond * 1000).rounded(.up))
        buckets.sweepIfLarge { now - $0.at < refill }
        return true
    }

    var count: Int { buckets.count }
}
