import Caches

/// Keys derived from server.key (one HMAC each), kept so a busy device or app is not derived again
/// for every request. Bounded by the bytes it holds (names can be long): past `byteLimit` it starts
/// over, so memory stays flat whatever the number of devices. A gateway remembers a key only once a
/// proof made with it has verified, so forged traffic cannot fill it. Owned by one thread.
public struct DerivedKeyCache {
    private var keys: StartOverCache<KeyName, String>
    /// What one entry costs besides its key's characters (the dictionary slot with its 16-byte
    /// name, the string's header).
    static let entryOverhead = 64

    /// 32 MiB by default: about 250,000 keys (the gateway's `--key-cache-mb`). At 4 MiB a replay
    /// over 200,000 devices started over every 27,000 and derived nearly every key again (13 % of
    /// the gateway).
    public init(byteLimit: Int = 32 << 20) { keys = StartOverCache(limit: byteLimit) }

    public var byteLimit: Int { keys.limit }

    /// What the entries cost, as counted against `byteLimit`.
    public var byteCount: Int { keys.totalCost }

    /// The key remembered under `name`, if any.
    public func key(_ name: KeyName) -> String? { keys[name] }

    public mutating func remember(_ key: String, as name: KeyName) {
        keys.insert(key, forKey: name, cost: key.utf8.count + Self.entryOverhead)
    }

    /// The key remembered under `name`, derived by `derive` (and remembered) the first time.
    public mutating func key(_ name: KeyName, derive: () -> String) -> String {
        if let key = keys[name] { return key }
        let key = derive()
        remember(key, as: name)
        return key
    }
}
