/// How a sharded service's data is split: a device key's stable hash (FNV-1a, the same on every
/// machine and run) modulo the shard count. The gateway routes with it; services that give out
/// IDs pick IDs that land on their own shard.
public enum ShardHash {
    public static func hash(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01B3
        }
        return hash
    }

    /// The shard (0..<count) that owns `key`.
    public static func shard(of key: String, count: Int) -> Int {
        precondition(count > 0, "a service has at least one shard")
        return Int(hash(key) % UInt64(count))
    }

    /// The MDP service name a shard's workers announce: `tagging` alone, `tagging/1` of several.
    public static func serviceName(_ service: String, shard: Int, of count: Int) -> String {
        count > 1 ? "\(service)/\(shard)" : service
    }

    /// The service a shard's MDP name belongs to: `tagging` for `tagging/1` and for `tagging`.
    public static func baseService(of name: String) -> Substring {
        name.split(separator: "/", maxSplits: 1).first ?? Substring(name)
    }

    /// Whether `name` is one shard's MDP name (`tagging/1`), not a whole service's.
    public static func isShardName(_ name: String) -> Bool { name.utf8.contains(UInt8(ascii: "/")) }

    /// The key of an install before it has an ID (`device.register`, `ma.start`): app and device id.
    public static func installKey(appKey: String, deviceID: String) -> String { "\(appKey)/\(deviceID)" }
}
