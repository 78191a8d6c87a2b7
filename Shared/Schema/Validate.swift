import Foundation

/// Validation rules shared by services and clients. Each returns the cleaned value or throws the
/// `CommandError` whose code the SDKs expect.
public enum Validate {
    /// `app_key`: required (1005), 1..64 letters, digits, `_` or `-` (1008).
    public static func appKey(_ value: String?) throws(CommandError) -> String {
        guard let value, !value.isEmpty else { throw CommandError(.appKeyMissing, "app_key is missing") }
        guard value.utf8.count <= 64, isKeyText(value) else {
            throw CommandError(.appKeyInvalid, "app_key is invalid")
        }
        return value
    }

    /// `registration_id`: required (6001), 1..64 letters, digits, `_` or `-` (6017).
    public static func registrationID(_ value: String?) throws(CommandError) -> String {
        guard let value, !value.isEmpty else { throw .empty("registration_id is missing") }
        guard value.utf8.count <= 64, isKeyText(value) else {
            throw .invalid("registration_id is malformed")
        }
        return value
    }

    /// A required text field: present and not empty (6001), at most `maxBytes` UTF-8 bytes (6017).
    public static func required(_ value: String?, _ field: String, maxBytes: Int) throws(CommandError) -> String {
        guard let value, !value.isEmpty else { throw .empty("\(field) is missing") }
        guard value.utf8.count <= maxBytes else { throw .invalid("\(field) is longer than \(maxBytes) bytes") }
        return value
    }

    /// A page name (`page.enter`, `page.leave`, `stats.report`, the channel's page frames): present
    /// and not empty (6001), at most 256 UTF-8 bytes and no control character (6017).
    public static func page(_ value: String?) throws(CommandError) -> String {
        let page = try required(value, "page", maxBytes: 256)
        guard !hasControlCharacter(page) else { throw .invalid("page must not contain control characters") }
        return page
    }

    /// Whether `value` holds a control character (U+0000-001F, U+007F-009F), which no name a client
    /// gives (a page, a schedule's name, a request_id) may hold.
    public static func hasControlCharacter(_ value: String) -> Bool {
        value.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    /// A mobile number as the seed fixes it: nil or "" unbinds (returns nil); otherwise it starts
    /// with `+` or a digit and has only digits and `-` after (6023), at most 20 characters (6025).
    public static func mobile(_ value: String?) throws(CommandError) -> String? {
        guard let value, !value.isEmpty else { return nil }
        let bytes = Array(value.utf8)
        let startsWell = bytes[0] == UInt8(ascii: "+") || isDigit(bytes[0])
        let restWell = bytes.dropFirst().allSatisfy { isDigit($0) || $0 == UInt8(ascii: "-") }
        guard startsWell, restWell else {
            throw CommandError(.mobileFormat, "mobile must start with + or a digit, then only digits and -")
        }
        guard value.count <= 20 else { throw CommandError(.mobileTooLong, "mobile is longer than 20 characters") }
        return value
    }

    /// A device token in hex (APNs, VoIP, Live Activity): even length, 2..1024 hex digits (6017).
    /// Returned lower-cased so the same token always compares equal.
    public static func hexToken(_ value: String, _ field: String) throws(CommandError) -> String {
        let bytes = value.utf8
        guard !bytes.isEmpty else { throw .empty("\(field) is empty") }
        guard bytes.count % 2 == 0, bytes.count <= 1024, bytes.allSatisfy(isHexByte) else {
            throw .invalid("\(field) must be hex (an even number of 0-9, a-f)")
        }
        return value.lowercased()
    }

    /// A Live Activity id: 1..24 UTF-8 bytes.
    public static func liveActivityID(_ value: String?) throws(CommandError) -> String {
        guard let value, !value.isEmpty else { throw .empty("live_activity_id is missing") }
        guard value.utf8.count <= 24 else { throw .invalid("live_activity_id is longer than 24 bytes") }
        return value
    }

    /// A language tag like `zh_Hans` or `en-US`: 1..35 letters, digits, `_` or `-`.
    public static func language(_ value: String) throws(CommandError) -> String {
        guard !value.isEmpty, value.utf8.count <= 35, isKeyText(value) else {
            throw .invalid("language must be 1..35 letters, digits, _ or -")
        }
        return value
    }

    /// An IANA time zone name known to this system, e.g. `Asia/Shanghai`.
    public static func timeZone(_ value: String) throws(CommandError) -> String {
        guard value.utf8.count <= 64, TimeZone(identifier: value) != nil else {
            throw .invalid("timezone \(value) is not an IANA time zone name")
        }
        return value
    }

    /// A channel name (TikPush): 1..128 UTF-8 bytes without spaces or control characters (6017),
    /// returned and measured in `CanonicalForm` (NFC), the form stored and compared.
    public static func channel(_ given: String?) throws(CommandError) -> String {
        guard let given, !given.isEmpty else { throw .empty("channel is missing") }
        let value = CanonicalForm.of(given)
        guard value.utf8.count <= 128,
              value.unicodeScalars.allSatisfy({ $0.properties.isWhitespace == false && $0.value >= 0x20 && $0.value != 0x7F })
        else { throw .invalid("channel must be 1..128 bytes without spaces or control characters") }
        return value
    }

    /// A platform name: 1..16 lower-case letters (`ios`, `android`, …).
    public static func platform(_ value: String?) throws(CommandError) -> String {
        guard let value, !value.isEmpty else { throw .empty("platform is missing") }
        guard value.utf8.count <= 16, value.utf8.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else {
            throw .invalid("platform must be 1..16 lower-case letters, like ios or android")
        }
        return value
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isHexByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }

    /// Whether every byte of `value` is a key byte, read from its UTF-8 in place (every request
    /// checks two keys; the byte view's `allSatisfy` cost five times as much).
    static func isKeyText(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            for byte in bytes where !isKeyByte(byte) { return false }
            return true
        }
    }

    public static func isKeyByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
