import Foundation
import Testing
@testable import GatewayKit

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

    @Test func oldProofsAreSweptAsTheCacheGrows() {
        var cache = ReplayCache(window: 300)
        var accepted = 0
        for n in 0..<100_000 where cache.insert(proof(UInt64(n)), ts: 0, now: 0) { accepted += 1 }
        #expect(accepted == 100_000)
        let refused = !cache.insert(proof(5), ts: 0, now: 0)
        // The 100,001st entry sweeps the proofs more than 300 s old (their ts is refused anyway).
        let fresh = cache.insert(proof(200_000), ts: 1000, now: 1000)
        let sweptThenAccepted = cache.insert(proof(5), ts: 1000, now: 1000)
        #expect(refused && fresh && sweptThenAccepted)
    }
}
