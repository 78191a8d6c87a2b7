/// Unguessable identifiers and secrets from the system's cryptographic random source.
public enum RandomKey {
    /// `bytes` random bytes as lower-case hex (2 × bytes characters).
    public static func hex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return HMAC.hex(Array(bytes.prefix(count)))
    }
}
