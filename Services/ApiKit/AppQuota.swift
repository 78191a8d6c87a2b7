import Foundation

/// Units per app in fixed windows (JPush's X-Rate-Limit headers): each app may spend `quota` units
/// a window of `windowSeconds`; past it, 429 until the window turns. A request costs one unit and a
/// batch push one per push (EngageLab's batch API shares the push API's quota that way). Counted in
/// this process only: N `api` processes behind one address allow an app N times the quota (the
/// gateway's `--app-rate` bounds an app across all of them). Shared by the server's threads.
public final class AppQuota: @unchecked Sendable {
    /// What the headers say of an app's window.
    public struct Standing: Sendable {
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

    /// Takes up to `count` units of `appKey`'s window at Unix second `now`, as many as it has left,
    /// and returns how many it took (all of them when there is no limit).
    public func take(_ appKey: String, upTo count: Int = 1, now: Int64) -> Int {
        guard quota > 0, count > 0 else { return max(count, 0) }
        return lock.withLock {
            turn(now)
            let used = counts[appKey, default: 0]
            let taken = min(count, quota - used)
            if taken > 0 { counts[appKey] = used + taken }
            return max(taken, 0)
        }
    }

    /// Where `appKey`'s window stands at Unix second `now`; nil when there is no limit.
    public func standing(_ appKey: String, now: Int64) -> Standing? {
        guard quota > 0 else { return nil }
        let reset = Int(Int64(windowSeconds) - now % Int64(windowSeconds))
        return lock.withLock {
            turn(now)
            return Standing(quota: quota, remaining: max(0, quota - counts[appKey, default: 0]), reset: reset)
        }
    }

    /// Forgets every count when `now` is in another window than the last one (under the lock).
    private func turn(_ now: Int64) {
        let current = now / Int64(windowSeconds)
        guard current != window else { return }
        window = current
        counts.removeAll(keepingCapacity: true)
    }
}
