/// Keys derived from server.key (one HMAC each), kept so a busy device or app is not derived again
/// for every request. Bounded: past `limit` entries it starts over, so memory stays flat whatever
/// the number of devices. Owned by one thread.
public struct DerivedKeyCache {
    public let limit: Int
    private var keys: [String: String] = [:]

    public init(limit: Int = 100_000) { self.limit = limit }

    /// The key cached under `name`, derived by `derive` the first time.
    public mutating func key(_ name: String, derive: () -> String) -> String {
        if let key = keys[name] { return key }
        if keys.count >= limit { keys.removeAll(keepingCapacity: true) }
        let key = derive()
        keys[name] = key
        return key
    }
}
