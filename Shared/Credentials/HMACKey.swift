import CCrypto
import Foundation

/// An HMAC-SHA256 key made ready once. libcrypto keeps the digests of the key's two pads, so a MAC
/// under it starts from them instead of keying again, which for a short message is about half the
/// work of `HMAC`'s one-shot MAC. For keys that sign or check many messages: a publisher seals every
/// event with its one credential, and a subscriber checks the events of a few publishers.
///
/// Not thread-safe: the context is rewritten by each MAC, so one thread uses a key at a time.
public final class HMACKey {
    /// The keyed context `HMAC` computes with (`pushbus_hmac_sha256_keyed`).
    let context: OpaquePointer

    public init(_ key: String) {
        var key = key
        let context = key.withUTF8 { pushbus_hmac_sha256_key($0.baseAddress, $0.count) }
        // Only a libcrypto without HMAC or SHA-256 fails here, and then nothing can be signed.
        guard let context else { preconditionFailure("libcrypto could not make an HMAC-SHA256 context") }
        self.context = context
    }

    deinit { EVP_MAC_CTX_free(context) }
}
