/// Unguessable identifiers and secrets from the system's cryptographic random source.
public enum RandomKey {
    /// `prefix`, then `bytes` random bytes, as lower-case hex (2 × (prefix.count + bytes) characters).
    public static func hex(bytes count: Int, after prefix: [UInt8] = []) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = prefix
        bytes.reserveCapacity(prefix.count + count + 7)
        while bytes.count < prefix.count + count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return HMAC.hex(bytes.prefix(prefix.count + count))
    }
}
