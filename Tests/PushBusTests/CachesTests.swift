@testable import Caches
import Testing

@Suite("caches")
struct CachesTests {
    @Test func aRotatingDictionaryKeepsAnEntryAPeriodAfterItsLastUseAndNotTwoPeriods() {
        var map = RotatingDictionary<Int, Int>(period: 10)
        func add(_ key: Int, _ now: Int64) { map.update(key, now: now, make: { 0 }) { $0 += 1 } }
        add(1, 0)
        add(2, 5)
        add(3, 9)
        #expect(map.count == 3)
        add(2, 10)                        // the first rotation: 1 and 3 now in the older generation
        #expect(map[1] == 1 && map[2] == 2 && map[3] == 1)
        add(4, 19)
        #expect(map.count == 4, "nothing is dropped within a period of the last rotation")
        add(4, 20)                        // the second: 1 and 3, unused since 10, are gone
        #expect(map[1] == nil && map[3] == nil && map[2] == 2 && map[4] == 2)
        add(5, 45)                        // more than two periods since: everything before is gone
        #expect(map.count == 1 && map[5] == 1)
    }

    @Test func aClockSetBackNeverMakesARotationComeEarly() {
        var map = RotatingDictionary<Int, Int>(period: 10)
        func add(_ key: Int, _ now: Int64) { map.update(key, now: now, make: { 0 }) { $0 += 1 } }
        add(1, 100)
        add(2, 50)      // set back: the period starts again from 50
        add(3, 59)
        add(3, 60)      // one rotation
        #expect(map[1] == 1 && map[2] == 1 && map[3] == 2)
    }

    /// `insert` says when it started over, for a user that keeps something derived from the entries.
    @Test func aStartOverCacheSaysWhenItStartsOver() {
        var cache = StartOverCache<Int, Int>(limit: 4)
        let startedOver = (0..<9).map { cache.insert($0, forKey: $0) }
        #expect(startedOver == [false, false, false, false, true, false, false, false, true])
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

    @Test func aStartOverCacheOfNothingKeepsNothing() {
        var cache = StartOverCache<Int, Int>(limit: 0)
        cache.insert(1, forKey: 1)
        #expect(cache[1] == nil && cache.count == 0)
        var made = 0
        for _ in 0..<2 { _ = cache.value(2) { made += 1; return 2 } }
        #expect(made == 2, "made each time, never kept")
    }

    @Test func aStartOverCacheForgetsARemovedEntry() {
        var cache = StartOverCache<Int, Int>(limit: 4)
        cache.insert(1, forKey: 1)
        cache.removeValue(forKey: 1)
        #expect(cache[1] == nil && cache.count == 0)
    }

    @Test func aStartOverCacheKeepsItsRoomWhenItStartsOver() {
        var cache = StartOverCache<Int, Int>(limit: 10_000)
        for n in 0..<10_000 { cache.insert(n, forKey: n) }
        let filled = cache.capacity
        cache.insert(0, forKey: -1)
        #expect(filled >= 10_000 && cache.count == 1 && cache.capacity == filled)
    }

    /// Filled to 200,000 entries, no table of a sharded dictionary holds more than a few times its
    /// share, so none ever rehashed more than that at once (one dictionary rehashed all 131,072
    /// entries at its last doubling); entries are found, changed in place and removed as in one.
    @Test func aShardedDictionaryGrowsATableAtATime() {
        var map = ShardedDictionary<String, Int>()
        let count = 200_000
        for n in 0..<count { map["device-\(n)"] = n }
        #expect(map.count == count && map["device-7"] == 7 && map["device-\(count)"] == nil)
        let largest = map.tables.map(\.capacity).max() ?? 0
        #expect(map.shardCount == 32 && largest <= 4 * count / 32, "the largest table holds room for \(largest)")
        #expect(map.modify("device-9") { value -> Int in value += 1; return value } == 10 && map["device-9"] == 10)
        #expect(map.modify("absent") { _ in 1 } == nil)
        #expect(map.removeValue(forKey: "device-9") == 10 && map["device-9"] == nil && map.count == count - 1)
        let room = map.capacity
        map.removeAll(keepingCapacity: true)
        #expect(map.count == 0 && map.capacity == room)
    }

    @Test func aLargeStartOverCacheIsShardedAndASmallOneIsNot() {
        #expect(StartOverCache<Int, Int>(limit: 512).entries.shardCount == 1)
        #expect(StartOverCache<Int, Int>(limit: 250_000).entries.shardCount == 32)
    }
}
