/// A dictionary kept as several tables (32 by default), each key in the one its hash picks. A
/// Swift dictionary grows by doubling and rehashes every entry it holds as it does, in one call:
/// the tagging worker's device cache and rate limits and the gateway's derived keys, filling to
/// 200,000 entries from a start, stopped their process for 20-80 ms at a doubling (`perf` samples
/// inside the slowest batches at half the peak rate), and every request queued behind it waited as
/// long. Split 32 ways, a table that grows moves a thirty-second of the entries. Costs one more
/// hash of the key a call (none with one table, for dictionaries that stay small). Inlinable, so
/// each user gets it specialized for its own key and value types. Owned by one thread.
public struct ShardedDictionary<Key: Hashable, Value> {
    @usableFromInline var tables: [[Key: Value]]
    /// The table count less one (a power of two less one): the bits of the hash that pick a table.
    @usableFromInline let mask: Int

    /// `shards` tables (a power of two), with room for `minimumCapacity` entries in all, spread evenly.
    @inlinable
    public init(shards: Int = 32, minimumCapacity: Int = 0) {
        precondition(shards > 0 && shards & (shards - 1) == 0, "a power of two of tables")
        mask = shards - 1
        let each = (minimumCapacity + shards - 1) / shards
        tables = (0..<shards).map { _ in Dictionary(minimumCapacity: each) }
    }

    public var shardCount: Int { tables.count }

    @inlinable
    func shard(_ key: Key) -> Int { mask == 0 ? 0 : key.hashValue & mask }

    @inlinable
    public subscript(key: Key) -> Value? {
        get { tables[shard(key)][key] }
        set { tables[shard(key)][key] = newValue }
    }

    /// Runs `body` on the value under `key` in place, when there is one; nil when there is none.
    @inlinable
    public mutating func modify<Result>(_ key: Key, _ body: (inout Value) -> Result) -> Result? {
        let table = shard(key)
        guard let index = tables[table].index(forKey: key) else { return nil }
        return body(&tables[table].values[index])
    }

    /// Keeps `value` under `key`; returns what was there before.
    @inlinable @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        tables[shard(key)].updateValue(value, forKey: key)
    }

    @inlinable @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        tables[shard(key)].removeValue(forKey: key)
    }

    /// Empties every table; with `keepingCapacity`, each keeps its room.
    @inlinable
    public mutating func removeAll(keepingCapacity: Bool = false) {
        for table in tables.indices { tables[table].removeAll(keepingCapacity: keepingCapacity) }
    }

    @inlinable
    public var count: Int { tables.reduce(0) { $0 + $1.count } }

    /// Entries it holds room for before a table must grow.
    @inlinable
    public var capacity: Int { tables.reduce(0) { $0 + $1.capacity } }
}

extension ShardedDictionary: Sendable where Key: Sendable, Value: Sendable {}
