import Caches

/// Keys derived from server.key (one HMAC each), kept so a busy device or app is not derived again
/// for every request. Bounded by the bytes it holds (names can be long): past `byteLimit` it starts
/// over, so memory stays flat whatever the number of devices. A gateway remembers a key only once a
/// proof made with it has verified, so forged traffic cannot fill it. Owned by one thread.
public struct DerivedKeyCache {
    private var keys: StartOverCache<String, String>
    /// What one entry costs besides its characters (the dictionary slot, two string headers).
    static let entryOverhead = 64

    /// 32 MiB by default: about 200,000 devices' keys (the gateway's `--key-cache-mb`). At 4 MiB a
    /// replay over 200,000 devices started over every 27,000 and derived nearly every key again
    /// (13 % of the gateway).
    ///
    /// `reserved`: room is made at once for as many device keys as `byteLimit` holds (about 160
    /// bytes each), so filling the cache never stops to grow its table; for a process that will
    /// fill it (the gateway, a load test's client).
    public init(byteLimit: Int = 32 << 20, reserved: Bool = false) {
        keys = StartOverCache(limit: byteLimit, reserving: reserved ? byteLimit / Self.typicalDeviceEntry : 0)
    }

    /// What a device's entry costs, as counted: a 27-character name, its 64-character key, and the
    /// `entryOverhead`.
    static let typicalDeviceEntry = 160

    public var byteLimit: Int { keys.limit }

    /// What the entries cost, as counted against `byteLimit`.
    public var byteCount: Int { keys.totalCost }

    /// The key remembered under `name`, if any.
    public func key(_ name: String) -> String? { keys[name] }

    public mutating func remember(_ key: String, as name: String) {
        keys.insert(key, forKey: name, cost: name.utf8.count + key.utf8.count + Self.entryOverhead)
    }

    /// The key remembered under `name`, derived by `derive` (and remembered) the first time.
    public mutating func key(_ name: String, derive: () -> String) -> String {
        if let key = keys[name] { return key }
        let key = derive()
        remember(key, as: name)
        return key
    }
}
