import Foundation
import JSON
import Signing

/// What the signer reads of a payload: the device it names (`registration_id`, and its ID when that
/// is a string), its `app_key`, whether it already carries `ts` or `nonce`, and whether it has any
/// member. Read in place by `JSONScanner`, with no tree; a payload outside the scanner's subset (or
/// with an escaped key or ID) goes through the parser, which reads the same. A key given twice
/// reads as its first, as the parser reads it.
struct SigningFields: Equatable, Sendable {
    var namesDevice = false
    var registrationID: String?
    var appKey: String?
    var isStamped = false
    var isEmpty = true

    /// nil when `payload` is not one JSON object.
    init?(_ payload: Data) {
        guard let fields = Self.scan(payload) ?? Self.parse(payload) else { return nil }
        self = fields
    }

    private init() {}

    /// The fields through the full parser.
    static func parse(_ payload: Data) -> SigningFields? {
        guard let parsed = PayloadFields(payload) else { return nil }
        var fields = SigningFields()
        fields.namesDevice = parsed.contains(SigningPolicy.deviceField)
        fields.registrationID = parsed.string(SigningPolicy.deviceField)
        fields.appKey = parsed.string(SigningPolicy.appField)
        fields.isStamped = parsed.contains("ts") || parsed.contains("nonce")
        fields.isEmpty = parsed.isEmpty
        return fields
    }

    /// The fields read in place; nil when only the parser can say.
    static func scan(_ payload: Data) -> SigningFields? {
        payload.withUnsafeBytes { bytes in
            var fields = SigningFields()
            var clean = true
            var seenApp = false
            let scanned = JSONScanner.members(of: bytes) { member in
                fields.isEmpty = false
                guard clean, !member.keyHasEscape else {
                    clean = false
                    return
                }
                if member.isKey("registration_id"), !fields.namesDevice {
                    fields.namesDevice = true
                    if member.kind == .string {
                        guard let id = member.string else { clean = false; return }
                        fields.registrationID = id
                    }
                } else if member.isKey("app_key"), !seenApp {
                    seenApp = true
                    if member.kind == .string {
                        guard let key = member.string else { clean = false; return }
                        fields.appKey = key
                    }
                } else if member.isKey("ts") || member.isKey("nonce") {
                    fields.isStamped = true
                }
            }
            return scanned && clean ? fields : nil
        }
    }
}
