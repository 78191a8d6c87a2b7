/// Requests per second per app at the gateway (`--app-rate`): a bucket per `app_key` holding one
/// second's worth, so a short burst passes and a sustained excess gets code 6011. The broker counts
/// only requests whose proof verified, so nobody can spend another app's rate.
struct AppRateLimit {
    private var buckets: TokenBuckets<String>

    init(perSecond: Int) { buckets = TokenBuckets(perSecond: perSecond, burst: perSecond) }

    /// Takes a token for `appKey` at monotonic millisecond `now`; false when none is left.
    /// A request without an app_key is not limited here (the service refuses it with 1005).
    mutating func allow(appKey: String?, now: Int64) -> Bool {
        guard let appKey else { return true }
        return buckets.allow(appKey, now: now)
    }
}
