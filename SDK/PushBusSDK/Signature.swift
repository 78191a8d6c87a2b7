import Foundation
#if canImport(CryptoKit)
import CryptoKit
#else
import CCrypto
#endif

/// The proof of a device command (DESIGN.md, "Security"): `v1 device:<registration_id> <hex
/// HMAC-SHA256(device_secret, command + "\n" + payload)>`, keyed with the secret's hex text.
enum Signature {
    static func proof(registrationID: String, secret: String, command: String, payload: Data) -> String {
        "v1 device:\(registrationID) \(hmacHex(key: Data(secret.utf8), message: Data((command + "\n").utf8) + payload))"
    }

    static func hmacHex(key: Data, message: Data) -> String {
        #if canImport(CryptoKit)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return Data(code).hexString
        #else
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                _ = HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.bindMemory(to: UInt8.self).baseAddress, message.count,
                         &digest, &length)
            }
        }
        return Data(digest.prefix(Int(length))).hexString
        #endif
    }

    /// A fresh nonce: 16 hex digits.
    static func nonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx", generator.next() as UInt64)
    }
}

extension Data {
    /// Lower-case hex, two digits a byte: proofs, APNs, VoIP and Live Activity tokens.
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
