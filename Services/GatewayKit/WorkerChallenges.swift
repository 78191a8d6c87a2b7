import Credentials

/// The challenges the gateway hands out (`mmi.challenge`) for a worker to sign into its READY: each
/// is good once, only for the connection that asked, and for `lifetime` milliseconds. A READY
/// captured on the wire names a challenge already spent, or one a restarted gateway never gave, so
/// it admits nobody. At most `capacity` are outstanding; past it the oldest are dropped. Owned by the
/// broker's thread.
struct WorkerChallenges {
    let lifetime: Int64
    let capacity: Int
    private var outstanding: [String: (peer: [UInt8], expiry: Int64)] = [:]

    init(lifetime: Int64 = 30_000, capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// A new challenge for `peer` (its ROUTER identity).
    mutating func issue(to peer: [UInt8], now: Int64) -> String {
        if outstanding.count >= capacity {
            outstanding = outstanding.filter { $0.value.expiry > now }
            if outstanding.count >= capacity, let oldest = outstanding.min(by: { $0.value.expiry < $1.value.expiry }) {
                outstanding[oldest.key] = nil
            }
        }
        let challenge = RandomKey.hex(bytes: 16)
        outstanding[challenge] = (peer, now + lifetime)
        return challenge
    }

    /// Spends `challenge` for `peer`: true when it was issued to that peer and is still good.
    mutating func spend(_ challenge: String, by peer: [UInt8], now: Int64) -> Bool {
        guard let issued = outstanding.removeValue(forKey: challenge) else { return false }
        return issued.peer == peer && issued.expiry > now
    }
}
