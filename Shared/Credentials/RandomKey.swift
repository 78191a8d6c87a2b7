/// Unguessable identifiers and secrets from the system's cryptographic random source.
public enum RandomKey {
    /// `bytes` random bytes as lower-case hex (2 × bytes characters).
    public static func hex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return HMAC.hex((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
