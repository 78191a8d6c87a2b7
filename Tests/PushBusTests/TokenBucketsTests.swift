import Testing
@testable import GatewayKit
import Runtime

@Suite("token buckets")
struct TokenBucketsTests {
    func take<Key>(_ buckets: inout TokenBuckets<Key>, _ key: Key, now: Int64) -> Bool { buckets.allow(key, now: now) }

    @Test func aBurstPassesThenTheRateRefills() {
        var buckets = TokenBuckets<String>(perSecond: 10, burst: 3)
        #expect((0..<5).map { _ in take(&buckets, "a", now: 0) } == [true, true, true, false, false])
        #expect(take(&buckets, "b", now: 0), "each key has its own bucket")
        #expect(take(&buckets, "a", now: 100), "a tenth of a second refills one token at 10 a second")
        #expect(!take(&buckets, "a", now: 100))
        #expect((0..<4).map { _ in take(&buckets, "a", now: 10_000) } == [true, true, true, false], "never more than the burst")
    }

    @Test func onlyRefilledBucketsAreForgotten() {
        var buckets = TokenBuckets<Int>(perSecond: 1, burst: 2)   // 2 s to refill
        for key in 0..<100_000 { _ = take(&buckets, key, now: 0) }
        #expect(take(&buckets, 0, now: 1_000) && take(&buckets, 0, now: 1_000) && !take(&buckets, 0, now: 1_000))
        // At 2 s a generation turns over: bucket 0 keeps its state (one token refilled, not two).
        #expect(take(&buckets, 0, now: 2_000) && !take(&buckets, 0, now: 2_000))
        #expect(buckets.count == 100_000, "within two refill times nothing goes")
        #expect(take(&buckets, 1, now: 4_000))
        #expect(buckets.count == 2, "the buckets unused for 4 s were full again and are gone; 0 and 1 stay")
    }

    @Test func aZeroRateCanBeMade() {
        // The gateway makes its registration limit even when --register-rate is 0 (no limit), and
        // never asks it; making it must not trap on the refill time of a rate of 0.
        var buckets = TokenBuckets<Int>(perSecond: 0, burst: 5)
        #expect(take(&buckets, 1, now: 0) && buckets.count == 1)
    }
}
