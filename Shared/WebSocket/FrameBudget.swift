/// A token bucket over the frames one connection sends (or any of its events, such as the channel's
/// reports): refilled at `rate` per second up to `burst`, one token per frame. Two numbers, so
/// 20,000 connections can each hold one.
public struct FrameBudget: Sendable {
    private var tokens: Double
    private var stamp: Double

    public init(burst: Double, now: Double) {
        tokens = burst
        stamp = now
    }

    /// Takes a token for one frame; false when the bucket is empty (the sender is over its rate).
    public mutating func take(now: Double, rate: Double, burst: Double) -> Bool {
        tokens = min(burst, tokens + (now - stamp) * rate)
        stamp = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
