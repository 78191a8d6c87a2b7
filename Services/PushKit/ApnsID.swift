import Credentials
import Foundation

/// The `apns-id` of a message's notification to one device: derived from the two, so every attempt
/// at that notification (after a connection died, a 5xx, a restart of push or apns) carries the same
/// id, and APNs' answers and logs name one notification, not one per attempt.
enum ApnsID {
    static func of(msgID: String, registrationID: String) -> String {
        let hex = Array(HMAC.sha256Hex(key: "pushbus apns-id", message: Data("\(msgID)/\(registrationID)".utf8)).utf8.prefix(32))
        var text = ""
        text.reserveCapacity(36)
        for (index, byte) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append("-") }
            switch index {
            case 12: text.append("5")  // a name-based UUID (RFC 9562 version 5's place)
            case 16: text.append(Self.variants[Int(Self.nibble(byte) & 3)])  // the RFC's variant, 10xx
            default: text.append(Character(UnicodeScalar(byte)))
            }
        }
        return text
    }

    private static let variants: [Character] = ["8", "9", "a", "b"]

    private static func nibble(_ byte: UInt8) -> UInt8 { byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10 }
}
