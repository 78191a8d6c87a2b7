/// A cache bounded by what its entries cost (a count, or bytes): an entry that would take it past
/// `limit` empties it first, so memory stays flat whatever the number of keys, at the price of
/// computing the live entries again. Fits caches whose keys are few in normal use (publishers,
/// prepared SQL) or whose values are cheap to make again (derived keys). Owned by one thread.
/// Inlinable, so each user gets it specialized for its own key and value types: a generic call
/// across modules otherwise goes through witness tables, on every request that consults it.
public struct StartOverCache<Key: Hashable, Value> {
    public let limit: Int
    @usableFromInline var entries: ShardedDictionary<Key, Value>
    @usableFromInline var cost = 0
    /// Past this limit the entries are kept in 32 tables, so none grows by rehashing many at once.
    public static var shardedFromLimit: Int { 1 << 16 }

    @inlinable
    public init(limit: Int) {
        self.limit = limit
        entries = ShardedDictionary(shards: limit >= Self.shardedFromLimit ? 32 : 1)
    }

    @inlinable
    public subscript(key: Key) -> Value? { entries[key] }

    /// What the entries cost, as counted against `limit`.
    @inlinable
    public var totalCost: Int { cost }

    @inlinable
    public var count: Int { entries.count }

    /// Entries it holds room for before its table must grow.
    @inlinable
    public var capacity: Int { entries.capacity }

    /// Keeps `value` under `key` at `cost` (1 by default: a count); starts over first when it would
    /// not fit, and then returns true (for a user that keeps something derived from the entries). An
    /// entry costing more than a sixteenth of the limit is not worth keeping; a limit of 0 keeps
    /// nothing.
    @inlinable @discardableResult
    public mutating func insert(_ value: Value, forKey key: Key, cost entryCost: Int = 1) -> Bool {
        guard limit > 0, entryCost <= max(1, limit / 16) else { return false }
        let startsOver = cost + entryCost > limit
        if startsOver { removeAll() }
        if entries.updateValue(value, forKey: key) == nil { cost += entryCost }
        return startsOver
    }

    /// The value under `key`, made by `make` (and kept) the first time.
    @inlinable
    public mutating func value(_ key: Key, cost entryCost: Int = 1, make: () throws -> Value) rethrows -> Value {
        if let value = entries[key] { return value }
        let value = try make()
        insert(value, forKey: key, cost: entryCost)
        return value
    }

    /// Drops the entry under `key`. Its cost stays counted until the cache starts over (entries do
    /// not keep theirs), so removals only bring the next start-over nearer.
    @inlinable
    public mutating func removeValue(forKey key: Key) {
        entries[key] = nil
    }

    @inlinable
    public mutating func removeAll() {
        // The room stays: filling the table again from empty would grow it by doubling, rehashing
        // every entry each time (at 200,000 derived keys that held the gateway up for 70 ms).
        entries.removeAll(keepingCapacity: true)
        cost = 0
    }
}

extension StartOverCache: Sendable where Key: Sendable, Value: Sendable {}
