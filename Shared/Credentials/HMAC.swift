import CCrypto
import Foundation

/// HMAC-SHA256 from OpenSSL's libcrypto, as hex. No hand-written cryptography.
public enum HMAC {
    public static func sha256Hex(key: String, message: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let keyBytes = Array(key.utf8)
        message.withUnsafeBytes { raw in
            _ = CCrypto.HMAC(EVP_sha256(), keyBytes, Int32(keyBytes.count), raw.bindMemory(to: UInt8.self).baseAddress,
                             raw.count, &digest, &length)
        }
        return hex(digest.prefix(Int(length)))
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
