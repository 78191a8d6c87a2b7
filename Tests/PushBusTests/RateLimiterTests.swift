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

    @Test func keysUnusedForAWindowAreForgottenAndLiveOnesKept() {
        var limiter = RateLimiter(limit: 1, window: 10)
        for n in 0..<150_000 { _ = allow(&limiter, "old\(n)", now: 0) }
        #expect(limiter.trackedKeys == 150_000, "nothing is stale yet")
        for n in 0..<60_000 { _ = allow(&limiter, "new\(n)", now: 10) }
        #expect(!(allow(&limiter, "new1", now: 15)), "live keys keep their calls")
        #expect(allow(&limiter, "old1", now: 15), "a key's call left the window")
        for n in 0..<10 { _ = allow(&limiter, "later\(n)", now: 20) }
        #expect(limiter.trackedKeys == 60_011, "a window later the old keys' generation is dropped whole")
    }

    @Test func aRingOfTheLastCallsKeepsTheWindowExact() {
        var limiter = RateLimiter(limit: 3, window: 10)
        var answers: [Bool] = []
        // 0, 1, 2 allowed; 3–9.9 refused (not recorded); 10 allowed (0 left); 10.5 refused; 11 (1 left)…
        for now in [0, 1, 2, 3, 9.9, 10, 10.5, 11, 12, 12.5, 20, 21, 22, 23] { answers.append(allow(&limiter, "a", now: now)) }
        #expect(answers == [true, true, true, false, false, true, false, true, true, false, true, true, true, false])
    }
}
