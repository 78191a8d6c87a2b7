import Credentials
import Foundation

/// The `apns-id` of a message's notification to one device: derived from the two, so every attempt
/// at that notification (after a connection died, a 5xx, a restart of push or apns) carries the same
/// id, and APNs' answers and logs name one notification, not one per attempt.
enum ApnsID {
    /// The HMAC of `msgID/registrationID`, as a UUID's text. `key`, made ready once, is its caller's
    /// own (an `HMACKey` serves one thread at a time); without one, a key is made for the call.
    /// The text is written from the digest's first 16 bytes straight into the string (made once
    /// per notification of every push).
    static func of(msgID: String, registrationID: String, key: HMACKey? = nil) -> String {
        HMAC.withSHA256(key: key ?? HMACKey(Self.secret), head: msgID, separator: UInt8(ascii: "/"), body: registrationID) { digest in
            String(unsafeUninitializedCapacity: 36) { text in
                var at = 0
                for index in 0..<32 {
                    if index == 8 || index == 12 || index == 16 || index == 20 {
                        text[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    let nibble = index % 2 == 0 ? digest[index / 2] >> 4 : digest[index / 2] & 0x0F
                    switch index {
                    case 12: text[at] = UInt8(ascii: "5")  // a name-based UUID (RFC 9562 version 5's place)
                    case 16: text[at] = Self.variants[Int(nibble & 3)]  // the RFC's variant, 10xx
                    default: text[at] = Self.hexDigits[Int(nibble)]
                    }
                    at += 1
                }
                return at
            }
        }
    }

    static let secret = "pushbus apns-id"

    private static let variants: [UInt8] = Array("89ab".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
