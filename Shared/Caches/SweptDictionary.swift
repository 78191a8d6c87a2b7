/// A dictionary whose entries go stale with time (proofs past the clock window, full rate buckets,
/// call times out of their window): once it holds more than `sweepAt` entries, `sweep` keeps only
/// the live ones and the threshold becomes twice what stayed (never below `floor`), so sweeping
/// costs amortized O(1) an insert and memory follows the live entries. Owned by one thread.
public struct SweptDictionary<Key: Hashable, Value> {
    public private(set) var entries: [Key: Value] = [:]
    public let floor: Int
    private var sweepAt: Int

    public init(floor: Int = 100_000) {
        self.floor = floor
        sweepAt = floor
    }

    public subscript(key: Key) -> Value? {
        get { entries[key] }
        set { entries[key] = newValue }
    }

    /// Sets `value` under `key`; returns the value it replaced, if any.
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        entries.updateValue(value, forKey: key)
    }

    public var count: Int { entries.count }

    /// Past the threshold, drops every entry `isLive` says is stale.
    public mutating func sweepIfLarge(keeping isLive: (Value) -> Bool) {
        guard entries.count > sweepAt else { return }
        entries = entries.filter { isLive($0.value) }
        sweepAt = max(floor, entries.count * 2)
    }
}

extension SweptDictionary: Sendable where Key: Sendable, Value: Sendable {}
