/// A dictionary whose entries go stale with time (proofs past the clock window, full rate buckets,
/// call times out of their window): once it holds more than `sweepAt` entries, `sweep` keeps only
/// the live ones and the threshold becomes twice what stayed (never below `floor`), so sweeping
/// costs amortized O(1) an insert and memory follows the live entries. Owned by one thread.
/// Inlinable, so each user gets it specialized for its own key and value types: a generic call
/// across modules otherwise goes through witness tables, on every request that consults it.
public struct SweptDictionary<Key: Hashable, Value> {
    @usableFromInline var storage: [Key: Value] = [:]
    public let floor: Int
    @usableFromInline var sweepAt: Int

    @inlinable
    public init(floor: Int = 100_000) {
        self.floor = floor
        sweepAt = floor
    }

    @inlinable
    public subscript(key: Key) -> Value? {
        get { storage[key] }
        set { storage[key] = newValue }
    }

    /// Sets `value` under `key`; returns the value it replaced, if any.
    @inlinable @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        storage.updateValue(value, forKey: key)
    }

    @inlinable
    public var count: Int { storage.count }

    /// Every entry, live or not yet swept.
    @inlinable
    public var entries: [Key: Value] { storage }

    /// Past the threshold, drops every entry `isLive` says is stale.
    @inlinable
    public mutating func sweepIfLarge(keeping isLive: (Value) -> Bool) {
        guard storage.count > sweepAt else { return }
        storage = storage.filter { isLive($0.value) }
        sweepAt = max(floor, storage.count * 2)
    }
}

extension SweptDictionary: Sendable where Key: Sendable, Value: Sendable {}
