import Foundation
import JSON
import Schema

/// The four user identifiers of the MA seed, by their wire names.
enum IdentifierKind: String, CaseIterable, Sendable {
    case userID = "user_id", anonymousID = "anonymous_id", email, phone

    /// The longest value kept, in characters (3003 beyond).
    var maxLength: Int {
        switch self {
        case .userID, .anonymousID: 128
        case .email: 254
        case .phone: 16
        }
    }
}

/// The identifiers left after the MA seed's cleanup, and a result for each field that was refused.
struct CleanIdentifiers: Equatable {
    var valid: [IdentifierKind: String] = [:]
    var rejected: [IdentifierKind: MAFieldResult] = [:]
}

/// The cleanup of `MTMAUserID`: trim, treat empty and `0`/`null`/`undefined`/`nan` (any case) as omitted,
/// then refuse a value that is not a string or has a bad format (3013) or is too long (3003). Email is
/// lower-cased. An omitted field gets no result at all.
enum IdentifierCleanup {
    static let placeholders: Set<String> = ["0", "null", "undefined", "nan"]

    static func clean(_ user: MAUserID?) -> CleanIdentifiers {
        var result = CleanIdentifiers()
        guard let user else { return result }
        let fields: [(IdentifierKind, JSONValue?)] = [
            (.userID, user.userID), (.anonymousID, user.anonymousID), (.email, user.email), (.phone, user.phone),
        ]
        for (kind, value) in fields {
            switch clean(value, as: kind) {
            case .omitted: break
            case .valid(let text): result.valid[kind] = text
            case .rejected(let field): result.rejected[kind] = field
            }
        }
        return result
    }

    enum Outcome: Equatable {
        case omitted
        case valid(String)
        case rejected(MAFieldResult)
    }

    /// Check order: JSON null (omitted) → type (3013) → placeholders (omitted) → length (3003) → format (3013).
    static func clean(_ value: JSONValue?, as kind: IdentifierKind) -> Outcome {
        guard let value, value != .null else { return .omitted }
        guard case .string(let raw) = value else { return .rejected(notAString) }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, !placeholders.contains(text.lowercased()) else { return .omitted }
        guard text.count <= kind.maxLength else { return .rejected(tooLong) }
        guard hasValidFormat(text, kind) else { return .rejected(badFormat) }
        return .valid(kind == .email ? text.lowercased() : text)
    }

    static let tooLong = MAFieldResult(code: .maFieldTooLong, msg: "User identifier value exceeds the length limit")
    static let notAString = MAFieldResult(code: .maFieldInvalid, msg: "User identifier value is not a string")
    static let badFormat = MAFieldResult(code: .maFieldInvalid, msg: "User identifier value has an invalid format")

    private static func hasValidFormat(_ text: String, _ kind: IdentifierKind) -> Bool {
        switch kind {
        case .userID, .anonymousID: !text.unicodeScalars.contains(where: isControl)
        case .email: isEmail(text)
        case .phone: isPhone(text)
        }
    }

    /// `local@domain`: one `@`, a local part of 1..64 printable characters without spaces, and a domain of
    /// two or more dot-separated labels of letters, digits or `-`.
    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last,
              !local.isEmpty, local.utf8.count <= 64,
              !local.unicodeScalars.contains(where: { isControl($0) || $0.properties.isWhitespace }) else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            !label.isEmpty && label.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" }
        }
    }

    /// E.164: `+`, then 4..15 digits, e.g. `+8613800000000`.
    static func isPhone(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.first == UInt8(ascii: "+") && (5...16).contains(bytes.count)
            && bytes.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
