import Foundation

/// The top-level members of a JSON object payload, read with the wire's parser and none of the
/// Codable machinery: for code that looks at a few fields of a request and passes its bytes on.
/// A key given twice reads as its first occurrence, as the wire's decoder reads it.
public struct PayloadFields {
    private let members: [(key: String, value: JSONValue)]

    /// nil when `payload` is not one JSON object.
    public init?(_ payload: Data) {
        guard case .object(let object)? = try? JSONParser.parse(payload) else { return nil }
        members = object.members
    }

    public var isEmpty: Bool { members.isEmpty }

    public func contains(_ key: String) -> Bool { value(key) != nil }

    /// The member's value when it is a string.
    public func string(_ key: String) -> String? {
        guard case .string(let text)? = value(key) else { return nil }
        return text
    }

    /// The first member named `key`.
    private func value(_ key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }
}
