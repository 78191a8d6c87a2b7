import Caches
import Testing

@Suite("caches")
struct CachesTests {
    @Test func aSweptDictionaryDropsStaleEntriesOnlyPastItsThreshold() {
        var map = SweptDictionary<Int, Int>(floor: 4)
        for key in 0..<4 { map[key] = key }
        map.sweepIfLarge { $0 >= 2 }
        #expect(map.count == 4, "at the threshold nothing is swept")
        map[4] = 4
        map.sweepIfLarge { $0 >= 2 }
        #expect(map.entries.keys.sorted() == [2, 3, 4], "past it, only live entries stay")
        for key in 5..<8 { map[key] = key }
        map.sweepIfLarge { _ in false }
        #expect(map.count == 6, "the next threshold is twice what stayed (6), not the floor")
        map[8] = 8
        map.sweepIfLarge { $0 >= 7 }
        #expect(map.entries.keys.sorted() == [7, 8])
    }

    @Test func aStartOverCacheEmptiesBeforeGoingPastItsLimit() {
        var cache = StartOverCache<String, Int>(limit: 64)
        for n in 0..<64 { cache.insert(n, forKey: "k\(n)") }
        #expect(cache.count == 64 && cache.totalCost == 64)
        cache.insert(64, forKey: "k64")
        #expect(cache.count == 1 && cache["k64"] == 64 && cache["k0"] == nil, "started over")
        cache.insert(1, forKey: "big", cost: 5)
        #expect(cache["big"] == nil, "an entry over a sixteenth of the limit is not kept")
        var made = 0
        for _ in 0..<3 { _ = cache.value("x") { made += 1; return 7 } }
        #expect(made == 1 && cache["x"] == 7)
    }
}
