import Credentials
import Foundation

/// The `apns-id` of a message's notification to one device: derived from the two, so every attempt
/// at that notification (after a connection died, a 5xx, a restart of push or apns) carries the same
/// id, and APNs' answers and logs name one notification, not one per attempt.
enum ApnsID {
    /// The HMAC of `msgID/registrationID`, as a UUID's text. `key`, made ready once, is its caller's
    /// own (an `HMACKey` serves one thread at a time); without one, a key is made for the call.
    static func of(msgID: String, registrationID: String, key: HMACKey? = nil) -> String {
        let key = key ?? HMACKey(Self.secret)
        let hex = Array(HMAC.sha256Hex(key: key, head: msgID, separator: UInt8(ascii: "/"), body: Data(registrationID.utf8)).utf8.prefix(32))
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append(UInt8(ascii: "-")) }
            switch index {
            case 12: text.append(UInt8(ascii: "5"))  // a name-based UUID (RFC 9562 version 5's place)
            case 16: text.append(Self.variants[Int(Self.nibble(byte) & 3)])  // the RFC's variant, 10xx
            default: text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    static let secret = "pushbus apns-id"

    private static let variants: [UInt8] = Array("89ab".utf8)

    private static func nibble(_ byte: UInt8) -> UInt8 { byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10 }
}
