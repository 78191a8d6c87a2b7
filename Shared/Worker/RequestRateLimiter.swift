import Runtime
import SQLite

/// A service's per-key rate limit on requests, whose counts follow the store's transactions: a
/// request refused after it was counted still counts (a refused call is a call), and one whose
/// whole transaction rolled back (a batch run again, a failed commit) is taken back, so a batch
/// run again counts its calls once. Owned by the handler, on the worker's thread.
public final class RequestRateLimiter {
    private var limiter: RateLimiter
    private let store: Store

    public init(limit: Int, window: Double, store: Store) {
        limiter = RateLimiter(limit: limit, window: window)
        self.store = store
    }

    /// Counts a call for `key` at `now` (seconds) and returns true, or false when over the limit.
    public func allow(_ key: String, now: Double) -> Bool {
        guard limiter.allow(key, now: now) else { return false }
        store.onTransactionRollback { [unowned self] in limiter.takeBack(key, now: now) }
        return true
    }
}
