import CCrypto
import Foundation

/// HMAC-SHA256 from OpenSSL's libcrypto, as hex. No hand-written cryptography.
public enum HMAC {
    public static func sha256Hex(key: String, message: Data) -> String { sha256Hex(key: key, prefix: [], body: message) }

    /// The HMAC of `prefix` followed by `body`, without joining them first.
    public static func sha256Hex(key: String, prefix: [UInt8], body: Data) -> String {
        prefix.withUnsafeBytes { prefix in sha256Hex(key: .text(key), head: prefix, separator: nil, body: body) }
    }

    /// The HMAC of `head`'s UTF-8, the byte `separator` (when given) and `body`, joining nothing:
    /// a proof signs `command + "\n" + payload`.
    public static func sha256Hex(key: String, head: String, separator: UInt8?, body: Data) -> String {
        sha256Hex(key: .text(key), head: head, separator: separator, body: body)
    }

    /// `sha256Hex(key:head:separator:body:)` under a key made ready once.
    public static func sha256Hex(key: HMACKey, head: String, separator: UInt8?, body: Data) -> String {
        sha256Hex(key: .prepared(key), head: head, separator: separator, body: body)
    }

    private static func sha256Hex(key: Key, head: String, separator: UInt8?, body: Data) -> String {
        var head = head
        return head.withUTF8 { sha256Hex(key: key, head: UnsafeRawBufferPointer($0), separator: separator, body: body) }
    }

    private static func sha256Hex(key: Key, head: UnsafeRawBufferPointer, separator: UInt8?, body: Data) -> String {
        withDigest(key: key, head: head, separator: separator, body: body) { hex($0) }
    }

    /// Appends the hex HMAC of `head`'s UTF-8, `separator` and `body` to `text`: the same digits as
    /// `sha256Hex(key:head:separator:body:)`, with no string made for them.
    static func appendSHA256Hex(key: Key, head: String, separator: UInt8, body: Data, to text: inout [UInt8]) {
        var head = head
        head.withUTF8 { head in
            withDigest(key: key, head: UnsafeRawBufferPointer(head), separator: separator, body: body) { digest in
                for byte in digest {
                    text.append(hexDigits[Int(byte >> 4)])
                    text.append(hexDigits[Int(byte & 0x0F)])
                }
            }
        }
    }

    /// A key as given (a secret's text, keyed for each MAC) or made ready once (`HMACKey`).
    enum Key {
        case text(String)
        case prepared(HMACKey)
    }

    /// Calls `use` with the 32-byte HMAC-SHA256 of `head`'s UTF-8, `separator` and `body`'s UTF-8
    /// under a key made ready once, kept on the stack: no text, no copy of either string.
    public static func withSHA256<T>(key: HMACKey, head: String, separator: UInt8, body: String,
                                     _ use: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        var head = head, body = body
        return head.withUTF8 { head in
            body.withUTF8 { body in
                withDigest(key: .prepared(key), head: UnsafeRawBufferPointer(head), separator: separator, body: UnsafeRawBufferPointer(body), use)
            }
        }
    }

    /// Calls `use` with the 32-byte HMAC-SHA256, kept on the stack.
    private static func withDigest<T>(key: Key, head: UnsafeRawBufferPointer, separator: UInt8?, body: Data,
                                      _ use: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        body.withUnsafeBytes { body in withDigest(key: key, head: head, separator: separator, body: body, use) }
    }

    private static func withDigest<T>(key: Key, head: UnsafeRawBufferPointer, separator: UInt8?, body: UnsafeRawBufferPointer,
                                      _ use: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let separatorLength = separator == nil ? 0 : 1
        var separator = separator ?? 0
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            let signed = switch key {
            case .prepared(let key):
                pushbus_hmac_sha256_keyed(key.context, head.baseAddress, head.count, &separator, separatorLength,
                                          body.baseAddress, body.count, digest.baseAddress) == 1
            case .text(var text):
                text.withUTF8 { key in
                    pushbus_hmac_sha256_parts(key.baseAddress, key.count, head.baseAddress, head.count, &separator, separatorLength,
                                              body.baseAddress, body.count, digest.baseAddress) == 1
                }
            }
            // Only a libcrypto without HMAC or SHA-256 fails here, and then nothing can be signed.
            precondition(signed, "libcrypto could not compute HMAC-SHA256")
            return use(UnsafeBufferPointer(digest))
        }
    }

    /// Lower-case hex, written straight into the string's storage from a table (String(format:)
    /// costs a microsecond a byte).
    static func hex<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var index = 0
            for byte in bytes {
                text[index] = hexDigits[Int(byte >> 4)]
                text[index + 1] = hexDigits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    public static func sha256Hex(key: String, message: String) -> String { sha256Hex(key: key, message: Data(message.utf8)) }

    /// Compares two hex digests in time that does not depend on where they differ.
    public static func equal(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                guard let left = x.baseAddress, let right = y.baseAddress else { return true }  // both empty
                return CRYPTO_memcmp(left, right, x.count) == 0
            }
        }
    }

}
