/// The nonces of one signer's requests: a random 64-bit start, counted up, written as 16 hex
/// digits. A nonce must differ between two requests that are otherwise the same (same principal,
/// command, payload and second), so their proofs differ; it need not be secret, since the proof is
/// what cannot be forged. Counting keeps one signer's nonces distinct, and the random start makes
/// another signer's run into them about as unlikely as two random 64-bit values meeting; drawing 8
/// random bytes from the system for every request cost a tenth of the replay client's signing.
struct NonceCounter {
    private var upcoming = UInt64.random(in: .min ... .max)

    mutating func next() -> UInt64 {
        defer { upcoming &+= 1 }
        return upcoming
    }

    static func hex(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { text in
            writeHex(value, into: text)
            return 16
        }
    }

    /// Writes `value` as 16 lower-case hex digits at the start of `buffer` (16 bytes or more).
    static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        for index in 0..<16 {
            let digit = UInt8(truncatingIfNeeded: value >> (60 - 4 * UInt64(index))) & 0x0F
            buffer[index] = digit < 10 ? 0x30 + digit : 0x61 + digit - 10
        }
    }
}
