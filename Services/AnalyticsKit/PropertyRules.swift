import JSON
import Schema

/// The MA seed's rules for property names, object subfields and batches.
enum PropertyRules {
    /// The most properties one call may carry.
    static let maxBatch = 100
    static let maxNameBytes = 50
    static let maxSubfieldBytes = 128
    static let reservedPrefixes = ["el", "engagelab", "metaverse"]

    /// A property name: a lower-case letter, then lower-case letters, digits or `_`, at most 50 UTF-8 bytes,
    /// not starting with `el`, `engagelab` or `metaverse`.
    static func name(_ name: String) throws(CommandError) -> String {
        let bytes = Array(name.utf8)
        guard let first = bytes.first else { throw .invalid("a property name is empty") }
        guard bytes.count <= maxNameBytes else { throw .invalid("property name \(name.prefix(64)) is longer than 50 bytes") }
        guard isLower(first), bytes.allSatisfy({ isLower($0) || isDigit($0) || $0 == UInt8(ascii: "_") }) else {
            throw .invalid("property name \(name.prefix(64)) must start with a-z and hold only a-z, 0-9 and _")
        }
        if let prefix = reservedPrefixes.first(where: name.hasPrefix) {
            throw .invalid("property name \(name) starts with the reserved prefix \(prefix)")
        }
        return name
    }

    /// The subfields of an object value: not empty; names not empty, without `.` or `$`; values a string,
    /// a finite number, a boolean, an array of strings, or null (which removes the subfield).
    static func subfields(_ fields: [String: JSONValue], of property: String) throws(CommandError) -> [String: JSONValue] {
        guard !fields.isEmpty else { throw .invalid("\(property): an object must not be empty") }
        for (name, value) in fields {
            try subfieldName(name, of: property)
            guard value == .null || PropertyType.plain(of: value) != nil else {
                throw .invalid("\(property).\(name): a subfield holds a string, a number, a boolean, strings or null, not \(describe(value))")
            }
        }
        return fields
    }

    /// An object_array element: the subfield rules, its nulls dropped, at least one subfield left.
    static func element(_ fields: [String: JSONValue], of property: String) throws(CommandError) -> [String: JSONValue] {
        let kept = try subfields(fields, of: property).filter { $0.value != .null }
        guard !kept.isEmpty else { throw .invalid("\(property): an element needs a subfield that is not null") }
        return kept
    }

    static func subfieldName(_ name: String, of property: String) throws(CommandError) {
        guard !name.isEmpty, name.utf8.count <= maxSubfieldBytes, !name.contains("."), !name.contains("$") else {
            throw .invalid("\(property): subfield name \(name.prefix(64)) must be 1..128 bytes without . or $")
        }
    }

    /// Strings as a set: duplicates dropped, first occurrences kept in order.
    static func unique(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number that is not finite"
        case .string: "a string"
        case .array: "an array of non-strings"
        case .object: "a nested object"
        }
    }

    private static func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
