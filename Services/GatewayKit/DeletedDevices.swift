import Schema

/// Registration IDs the gateway has seen deleted on the bus (`device.deleted` from registration),
/// so it refuses their proofs at once (1008 "device deleted") instead of passing them on for the
/// service to refuse. The most recent `capacity` are kept, by a 64-bit hash each (16 bytes an
/// entry), so memory stays flat; older ones, and any deleted while this gateway was down, are
/// refused by the services' own tombstones. Owned by the broker's thread.
struct DeletedDevices {
    let capacity: Int
    private var members: Set<UInt64> = []
    private var order: [UInt64] = []
    private var oldest = 0

    init(capacity: Int = 100_000) { self.capacity = capacity }

    mutating func insert(_ registrationID: String) {
        let key = Self.key(registrationID)
        guard members.insert(key).inserted else { return }
        if order.count < capacity {
            order.append(key)
        } else {
            members.remove(order[oldest])
            order[oldest] = key
            oldest = (oldest + 1) % capacity
        }
    }

    func contains(_ registrationID: String) -> Bool { members.contains(Self.key(registrationID)) }

    private static func key(_ registrationID: String) -> UInt64 { ShardHash.hash(registrationID) }
}
