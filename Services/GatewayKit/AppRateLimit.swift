import Foundation
import Schema

/// Requests per second per app at the gateway: a token bucket per `app_key` holding one second's
/// worth of requests, so a short burst passes and a sustained excess gets code 6011.
struct AppRateLimit {
    let perSecond: Double
    private var buckets: [String: (tokens: Double, at: Int64)] = [:]
    /// Past this many apps, idle buckets are dropped; doubles with what stays, as ReplayCache does.
    private var sweepAt = 100_000

    init(perSecond: Int) { self.perSecond = Double(perSecond) }

    /// Takes a token for `appKey` at monotonic millisecond `now`; false when none is left.
    /// A request without an app_key is not limited here (the service refuses it with 1005).
    mutating func allow(appKey: String?, now: Int64) -> Bool {
        guard let appKey else { return true }
        var bucket = buckets[appKey] ?? (perSecond, now)
        bucket.tokens = min(perSecond, bucket.tokens + Double(now - bucket.at) * perSecond / 1000)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[appKey] = bucket
            return false
        }
        bucket.tokens -= 1
        buckets[appKey] = bucket
        if buckets.count > sweepAt {
            buckets = buckets.filter { now - $0.value.at < 10_000 }
            sweepAt = max(100_000, buckets.count * 2)
        }
        return true
    }

}
