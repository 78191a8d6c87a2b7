import CCrypto
import Foundation

/// Keeps a secret at rest (an app's APNs .p8 key in the push database): AES-256-GCM from libcrypto
/// under a key derived from server.key for one purpose, so a copy of the database alone reveals
/// nothing and a box cannot be moved to another row unnoticed (`context` is authenticated).
/// Sealed form: 12-byte nonce, ciphertext, 16-byte tag.
public struct SecretBox: Sendable {
    private let key: [UInt8]

    /// The box of `purpose` (e.g. `"apns.p8"`) under the deployment's server.key.
    public init(secrets: Secrets, purpose: String) {
        key = Self.bytes(hex: HMAC.sha256Hex(key: secrets.serverKey, message: "secret-box:" + purpose))
    }

    public func seal(_ plaintext: Data, context: String) -> Data {
        var nonce = [UInt8](repeating: 0, count: 12)
        precondition(RAND_bytes(&nonce, 12) == 1, "libcrypto has no random source")
        var out = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        let done = crypt(encrypt: true, nonce: nonce, input: [UInt8](plaintext), output: &out, tag: &tag, context: context)
        precondition(done, "libcrypto could not run AES-256-GCM")
        return Data(nonce + out + tag)
    }

    /// The plaintext, or nil when `sealed` was not sealed by this box for `context` (or was altered).
    public func open(_ sealed: Data, context: String) -> Data? {
        let bytes = [UInt8](sealed)
        guard bytes.count >= 28 else { return nil }
        let nonce = Array(bytes[0..<12])
        var tag = Array(bytes[(bytes.count - 16)...])
        let cipher = Array(bytes[12..<(bytes.count - 16)])
        var out = [UInt8](repeating: 0, count: cipher.count)
        return crypt(encrypt: false, nonce: nonce, input: cipher, output: &out, tag: &tag, context: context) ? Data(out) : nil
    }

    /// One AES-256-GCM pass; when decrypting, `tag` is checked and false means it did not verify.
    private func crypt(encrypt: Bool, nonce: [UInt8], input: [UInt8], output: inout [UInt8], tag: inout [UInt8],
                       context: String) -> Bool {
        guard let ctx = EVP_CIPHER_CTX_new() else { return false }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let aad = Array(context.utf8)
        var length: Int32 = 0
        let initialised = encrypt
            ? EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce)
            : EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce)
        guard initialised == 1 else { return false }
        let update = encrypt ? EVP_EncryptUpdate : EVP_DecryptUpdate
        guard update(ctx, nil, &length, aad, Int32(aad.count)) == 1 else { return false }
        if !input.isEmpty {
            guard update(ctx, &output, &length, input, Int32(input.count)) == 1 else { return false }
        }
        var tail = [UInt8](repeating: 0, count: 16)
        if encrypt {
            guard EVP_EncryptFinal_ex(ctx, &tail, &length) == 1 else { return false }
            return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1
        }
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else { return false }
        return EVP_DecryptFinal_ex(ctx, &tail, &length) == 1
    }

    private static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var high: UInt8?
        for digit in hex.utf8 {
            let value = digit <= 0x39 ? digit - 0x30 : digit - 0x61 + 10
            if let h = high { bytes.append(h << 4 | value); high = nil } else { high = value }
        }
        return bytes
    }
}
