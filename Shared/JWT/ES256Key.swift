import CCrypto
import Foundation

/// An EC P-256 private key, parsed once from PEM and kept, that makes ES256 signatures (RFC 7518
/// §3.4). Sendable: signing only reads the key, which libcrypto allows from any number of threads
/// at once; the key is freed when the last reference goes.
public final class ES256Key: @unchecked Sendable {
    /// libcrypto's `EVP_PKEY`, owned here.
    private let key: OpaquePointer

    /// Reads the first private key in `pem`: PKCS#8 (`-----BEGIN PRIVATE KEY-----`, an APNs .p8
    /// file) or SEC 1 (`-----BEGIN EC PRIVATE KEY-----`). Throws `unreadableKey` when there is
    /// none, `notP256` when it is another kind of key (RSA, Ed25519, another curve).
    public init(pem: String) throws(JWTError) {
        ERR_clear_error()
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { text in
            // The BIO reads the caller's buffer in place, so it must not outlive this closure.
            guard let bio = BIO_new_mem_buf(text.baseAddress, Int32(text.count)) else { return nil }
            defer { BIO_free(bio) }
            // A callback that gives no passphrase: the default one would prompt on the terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let parsed else { throw .unreadableKey(openSSLErrors()) }
        guard let found = Self.p256Mismatch(parsed) else {
            key = parsed
            return
        }
        EVP_PKEY_free(parsed)
        throw .notP256(found: found)
    }

    /// Reads the key from a PEM file (an APNs .p8).
    public convenience init(contentsOfFile path: String) throws(JWTError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .unreadableKey("\(path): \(error.localizedDescription)")
        }
        try self.init(pem: text)
    }

    deinit { EVP_PKEY_free(key) }

    /// The ES256 signature of `message`: ECDSA over its SHA-256, as the 64 bytes r || s that JWS
    /// wants (libcrypto gives DER, which a JWT verifier refuses).
    public func sign(_ message: Data) throws(JWTError) -> Data {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw .signing("EVP_MD_CTX_new: \(openSSLErrors())") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw .signing("EVP_DigestSignInit: \(openSSLErrors())") }
        var der = [UInt8](repeating: 0, count: 80)  // a P-256 signature in DER is at most 72 bytes
        var length = der.count
        let signed = message.withUnsafeBytes { message in
            EVP_DigestSign(context, &der, &length, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count)
        }
        guard signed == 1 else { throw .signing("EVP_DigestSign: \(openSSLErrors())") }
        return try Self.raw(fromDER: der[..<length])
    }

    /// r || s, each left-padded to 32 bytes, from a DER `ECDSA-Sig-Value`.
    static func raw(fromDER der: ArraySlice<UInt8>) throws(JWTError) -> Data {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { bytes in
            var cursor = bytes.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, bytes.count)
        }
        guard let signature = parsed else { throw .signing("d2i_ECDSA_SIG: \(openSSLErrors())") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { out in
            (BN_bn2binpad(r, out.baseAddress, 32), BN_bn2binpad(s, out.baseAddress.map { $0 + 32 }, 32))
        }
        guard written == (32, 32) else { throw .signing("r or s does not fit 32 bytes") }
        return Data(raw)
    }

    /// nil for an EC key on P-256, else what the key is instead ("RSA", "EC on secp384r1").
    private static func p256Mismatch(_ key: OpaquePointer) -> String? {
        let type = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "an unknown kind of key"
        guard EVP_PKEY_is_a(key, "EC") == 1 else { return type }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return "EC on an unnamed curve" }
        let curve = cText(name)
        return curve == "prime256v1" || curve == "P-256" ? nil : "EC on \(curve)"
    }
}
