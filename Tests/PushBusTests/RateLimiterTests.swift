import Runtime
import Testing

@Suite("rate limiter")
struct RateLimiterTests {
    func allow(_ limiter: inout RateLimiter, _ key: String, now: Double) -> Bool { limiter.allow(key, now: now) }

    @Test func slidingWindowPerKey() {
        var limiter = RateLimiter(limit: 3, window: 10)
        #expect((allow(&limiter, "a", now: 0)))
        #expect((allow(&limiter, "a", now: 1)))
        #expect((allow(&limiter, "a", now: 2)))
        #expect(!(allow(&limiter, "a", now: 9.9)))
        #expect((allow(&limiter, "b", now: 9.9)))
        #expect((allow(&limiter, "a", now: 10)), "the call at 0 left the window")
        #expect(!(allow(&limiter, "a", now: 10.5)))
    }

    @Test func staleKeysAreSweptAndLiveOnesKept() {
        var limiter = RateLimiter(limit: 1, window: 10)
        for n in 0..<150_000 { _ = allow(&limiter, "old\(n)", now: 0) }
        #expect(limiter.trackedKeys == 150_000, "nothing is stale yet")
        for n in 0..<60_000 { _ = allow(&limiter, "new\(n)", now: 20) }
        #expect(limiter.trackedKeys == 60_000, "once over the threshold, keys outside the window are swept")
        #expect(!(allow(&limiter, "new1", now: 21)), "live keys keep their calls")
    }
}
