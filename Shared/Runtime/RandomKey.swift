/// Unguessable identifiers from the system's cryptographic random source.
public enum RandomKey {
    /// `bytes` random bytes as lower-case hex (2 × bytes characters).
    public static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var text = ""
        text.reserveCapacity(bytes * 2)
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text += String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }
        return text
    }
}
