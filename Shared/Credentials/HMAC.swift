import CCrypto
import Foundation

/// HMAC-SHA256 from OpenSSL's libcrypto, as hex. No hand-written cryptography.
public enum HMAC {
    public static func sha256Hex(key: String, message: Data) -> String { sha256Hex(key: key, prefix: [], body: message) }

    /// The HMAC of `prefix` followed by `body`, without joining them first.
    public static func sha256Hex(key: String, prefix: [UInt8], body: Data) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var key = key
        let signed = key.withUTF8 { key in
            prefix.withUnsafeBytes { prefix in
                body.withUnsafeBytes { body in
                    pushbus_hmac_sha256(key.baseAddress, key.count, prefix.baseAddress, prefix.count, body.baseAddress, body.count, &digest)
                }
            }
        }
        // Only a libcrypto without HMAC or SHA-256 fails here, and then nothing can be signed.
        precondition(signed == 1, "libcrypto could not compute HMAC-SHA256")
        return hex(digest)
    }

    /// Lower-case hex, built from a table (String(format:) costs a microsecond a byte).
    static func hex<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func sha256Hex(key: String, message: String) -> String { sha256Hex(key: key, message: Data(message.utf8)) }

    /// Compares two hex digests in time that does not depend on where they differ.
    public static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return CRYPTO_memcmp(x, y, x.count) == 0
    }

}
