import Credentials
import Foundation
import Testing

@Suite("replay cache")
struct ReplayCacheTests {
    func proof(_ n: UInt64) -> String { String(format: "%016llx", n) + String(repeating: "0", count: 48) }

    @Test func aProofIsAcceptedOnceWithinTheWindow() {
        var cache = ReplayCache(window: 300)
        let signature = String(repeating: "0123456789abcdef", count: 4)
        let first = cache.insert(signature, ts: 1000, now: 1000)
        let again = cache.insert(signature, ts: 1000, now: 1001)
        let other = cache.insert("f" + signature.dropFirst(), ts: 1000, now: 1001)
        #expect(first && !again && other)
        #expect(ReplayCache.key(signature) == 0x0123_4567_89ab_cdef, "kept by its first 64 bits")
        #expect(ReplayCache.key("not hex at all") == ReplayCache.key("not hex at all"))
    }

    @Test func aProofIsRefusedAgainForAsLongAsItsTimestampIsInTheWindow() {
        var cache = ReplayCache(window: 300)
        var refusals: [Bool] = [!cache.insert(proof(1), ts: 1000, now: 1000)]
        // Every second up to the window's end, with other traffic in between.
        for now in stride(from: Int64(1001), through: 1300, by: 1) {
            refusals.append(!cache.insert(proof(UInt64(now) << 20), ts: now, now: now))
            refusals.append(!cache.insert(proof(1), ts: 1000, now: now))
        }
        #expect(refusals == [false] + Array(repeating: [false, true], count: 300).joined())
    }

    @Test func slicesPastTheWindowAreDroppedWhole() {
        var cache = ReplayCache(window: 300)
        var accepted = 0
        for n in 0..<50_000 where cache.insert(proof(UInt64(n)), ts: 1000, now: 1000) { accepted += 1 }
        if cache.insert(proof(60_000), ts: 1005, now: 1005) { accepted += 1 }
        let held = cache.count
        // At 1320 every ts of the slices of 1000 and 1005 is more than 300 s old, and than the
        // 10 s the clock may step back: the gateway refuses those by their ts, so the cache
        // forgets them all at once.
        let later = cache.insert(proof(70_000), ts: 1320, now: 1320)
        #expect(accepted == 50_001 && held == 50_001)
        #expect(later && cache.count == 1 && cache.sliceCount == 1)
    }

    @Test func aSkewedClockGetsASliceOfItsOwn() {
        var cache = ReplayCache(window: 300)
        let first = [cache.insert(proof(3), ts: -5, now: 290), cache.insert(proof(1), ts: 1250, now: 1000),
                     cache.insert(proof(2), ts: 1000, now: 1000)]
        let again = [cache.insert(proof(1), ts: 1250, now: 1200), cache.insert(proof(2), ts: 1000, now: 1299)]
        #expect(first == [true, true, true] && again == [false, false])
        let width = ReplayCache.sliceSeconds
        #expect(ReplayCache.slice(of: -1) == -1 && ReplayCache.slice(of: -width) == -1 && ReplayCache.slice(of: -width - 1) == -2)
    }

    /// One device's proofs all stamped ts = now + 300 fill one slice that lives for ten minutes;
    /// the slices of now made meanwhile must not each reserve its size.
    @Test func oneCrowdedSliceDoesNotMakeLaterSlicesReserveItsSize() {
        var cache = ReplayCache(window: 300)
        let crowd = 100_000
        for n in 0..<crowd { _ = cache.insert(proof(UInt64(n) + 1), ts: 1300, now: 1000) }
        for (i, now) in stride(from: Int64(1000), to: 1300, by: 10).enumerated() {
            _ = cache.insert(proof(UInt64(10_000_000 + i)), ts: now, now: now)
        }
        #expect(cache.count == crowd + 30)
        #expect(cache.capacity <= 4 * cache.count, "\(cache.capacity) slots reserved for \(cache.count) proofs")
    }

    @Test func theSliceOfNowHasRoomForAsManyAsTheSliceBefore() {
        var cache = ReplayCache(window: 300)
        for n in 0..<20_000 { _ = cache.insert(proof(UInt64(n)), ts: 1005, now: 1005) }
        let next = 1005 + ReplayCache.sliceSeconds
        _ = cache.insert(proof(1 << 40), ts: next, now: next)
        #expect(cache.capacity >= 2 * 20_000, "the new slice starts with room for 20,000: \(cache.capacity)")
    }

    /// A proof admitted at the window's edge is still refused after the clock steps back by up to
    /// `stepBackSeconds` (an NTP correction), though the gateway's window admits its `ts` again.
    @Test func aProofAtTheEdgeIsRefusedAfterTheClockStepsBack() {
        for stepBack in [Int64(1), 5, ReplayCache.stepBackSeconds] {
            var cache = ReplayCache(window: 300)
            let admitted = cache.insert(proof(1), ts: 700, now: 1000)   // 300 s old
            let movedOn = cache.insert(proof(2), ts: 1000 + stepBack, now: 1000 + stepBack)
            let again = cache.insert(proof(1), ts: 700, now: 1000)
            #expect(admitted && movedOn)
            #expect(!again, "the clock stepped back \(stepBack) s: the proof is refused")
        }
    }
}
