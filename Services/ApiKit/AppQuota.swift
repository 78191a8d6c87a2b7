import Foundation

/// Requests per app in fixed windows (JPush's X-Rate-Limit headers): each app may make `quota`
/// requests a window of `windowSeconds`; past it, 429 until the window turns. Counted in this
/// process only: N `api` processes behind one address allow an app N times the quota (the
/// gateway's `--app-rate` bounds an app across all of them). Shared by the server's threads.
public final class AppQuota: @unchecked Sendable {
    /// What the headers say after a request was counted.
    public struct Standing: Sendable {
        public let allowed: Bool
        public let quota: Int
        public let remaining: Int
        /// Seconds until the window turns.
        public let reset: Int

        public var headers: [(name: String, value: String)] {
            [("X-Rate-Limit-Quota", String(quota)), ("X-Rate-Limit-Limit", String(quota)),
             ("X-Rate-Limit-Remaining", String(remaining)), ("X-Rate-Limit-Reset", String(reset))]
        }
    }

    public let quota: Int
    public let windowSeconds: Int
    private let lock = NSLock()
    private var window: Int64 = 0
    private var counts: [String: Int] = [:]

    /// `quota` 0 is no limit.
    public init(quota: Int, windowSeconds: Int) {
        self.quota = quota
        self.windowSeconds = max(1, windowSeconds)
    }

    /// Counts one request of `appKey` at Unix second `now`; nil when there is no limit.
    public func take(_ appKey: String, now: Int64) -> Standing? {
        guard quota > 0 else { return nil }
        let current = now / Int64(windowSeconds)
        let reset = Int(Int64(windowSeconds) - now % Int64(windowSeconds))
        return lock.withLock {
            if current != window {
                window = current
                counts.removeAll(keepingCapacity: true)
            }
            let used = counts[appKey, default: 0]
            guard used < quota else { return Standing(allowed: false, quota: quota, remaining: 0, reset: reset) }
            counts[appKey] = used + 1
            return Standing(allowed: true, quota: quota, remaining: quota - used - 1, reset: reset)
        }
    }
}
