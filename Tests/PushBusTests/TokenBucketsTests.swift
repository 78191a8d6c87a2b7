import Testing
@testable import GatewayKit

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

    @Test func onlyRefilledBucketsAreSwept() {
        var buckets = TokenBuckets<Int>(perSecond: 1, burst: 2)   // 2 s to refill
        for key in 0..<100_000 { _ = take(&buckets, key, now: 0) }
        #expect(take(&buckets, 0, now: 1_000) && take(&buckets, 0, now: 1_000) && !take(&buckets, 0, now: 1_000))
        #expect(take(&buckets, 100_000, now: 2_500), "the 100,001st bucket sweeps")
        #expect(buckets.count == 2, "the buckets untouched for 2.5 s were full again and are gone")
        #expect(take(&buckets, 0, now: 2_500) && !take(&buckets, 0, now: 2_500), "a bucket still refilling kept its state")
    }
}
