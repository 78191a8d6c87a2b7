/// Whose key a `DerivedKeyCache` entry holds, as a 128-bit keyed hash of what the key is derived
/// from (an app's key, a device's, a service's), so an entry's name is two words: naming a device
/// joins no strings and allocates nothing, and rehashing the table as it grows moves words, not
/// strings. The hash is Swift's `Hasher` (SipHash, seeded at random per process), twice with
/// different salts, so nobody can choose two names that share one; by chance alone, a million
/// names meet with odds of about one in 2^88.
public struct KeyName: Hashable, Sendable {
    private let high: UInt64
    private let low: UInt64

    /// The device `registrationID` of the app `appKey`.
    public static func device(appKey: String, registrationID: String) -> KeyName { KeyName(kind: 0, appKey, registrationID) }

    /// The app `appKey` (its master secret).
    public static func app(_ appKey: String) -> KeyName { KeyName(kind: 1, appKey) }

    /// One of PushBus's own services, by its MDP name.
    public static func service(_ name: String) -> KeyName { KeyName(kind: 2, name) }

    private init(kind: UInt8, _ first: String, _ second: String = "") {
        func hash(salt: UInt8) -> UInt64 {
            var hasher = Hasher()
            hasher.combine(salt)
            hasher.combine(kind)
            hasher.combine(first)    // a string is hashed with its length, so the two never run together
            hasher.combine(second)
            return UInt64(bitPattern: Int64(hasher.finalize()))
        }
        high = hash(salt: 0)
        low = hash(salt: 1)
    }
}
