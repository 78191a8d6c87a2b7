/// A dictionary that forgets entries left unused for a while (full rate buckets, call times out of
/// their window), in O(1) a call and without a pause: entries live in two generations, and every
/// `period` the older one is dropped whole and the newer one becomes the older. An entry that is
/// read or written moves to the newer generation, so it is kept at least `period` after its last use
/// and dropped at most twice that after it. Sweeping a single dictionary by filtering it, as before,
/// rebuilt it entry by entry: the tagging worker's per-device limiter stopped for 30–40 ms every
/// few seconds at 200,000 devices. Dropping a generation frees one buffer when keys and values hold
/// no references (fixed-size keys, inline values); the new generation starts with room for as many
/// entries as the last, so it does not grow by rehashing either.
///
/// Times are whatever unit the caller counts in (`period` and `now` alike), and must not run
/// backwards by much: a clock that does makes the next rotation wait, never come early. Inlinable,
/// so each user gets it specialized for its own key and value types. Owned by one thread.
public struct RotatingDictionary<Key: Hashable, Value> {
    public let period: Int64
    /// Each generation in 32 tables, so none grows by rehashing every entry at once (`ShardedDictionary`).
    @usableFromInline var newer = ShardedDictionary<Key, Value>()
    @usableFromInline var older = ShardedDictionary<Key, Value>()
    @usableFromInline var rotatedAt: Int64?

    @inlinable
    public init(period: Int64) {
        precondition(period > 0, "a rotation period must be positive")
        self.period = period
    }

    /// Runs `body` on the entry under `key` (made by `make` when there is none), at `now`; keeps
    /// what it leaves there.
    @inlinable
    public mutating func update<Result>(_ key: Key, now: Int64, make: () -> Value, _ body: (inout Value) -> Result) -> Result {
        rotateIfDue(now: now)
        if let result = newer.modify(key, body) { return result }
        var value = older.removeValue(forKey: key) ?? make()
        defer { newer[key] = value }
        return body(&value)
    }

    /// The entry under `key`, if any, without moving it.
    @inlinable
    public subscript(key: Key) -> Value? { newer[key] ?? older[key] }

    /// Forgets the entry under `key`, in either generation.
    @inlinable
    public mutating func removeValue(forKey key: Key) {
        _ = newer.removeValue(forKey: key)
        _ = older.removeValue(forKey: key)
    }

    /// Entries held, in both generations (some may be past use, not yet dropped).
    @inlinable
    public var count: Int { newer.count + older.count }

    @inlinable
    mutating func rotateIfDue(now: Int64) {
        guard let last = rotatedAt, now >= last else {
            rotatedAt = now   // the first call, or a clock set back: start the period from here
            return
        }
        guard now - last >= period else { return }
        // Two periods without a call: everything is past use.
        older = now - last >= 2 * period ? ShardedDictionary() : newer
        newer = ShardedDictionary(minimumCapacity: older.count)
        rotatedAt = now
    }
}

extension RotatingDictionary: Sendable where Key: Sendable, Value: Sendable {}
