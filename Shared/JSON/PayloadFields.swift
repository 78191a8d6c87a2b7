import Foundation

/// The top-level members of a JSON object payload, read with the wire's parser and none of the
/// Codable machinery: for code that looks at a few fields of a request and passes its bytes on.
/// A key given twice reads as its first occurrence, as the wire's decoder reads it.
public struct PayloadFields {
    private let object: JSONParsed

    /// nil when `payload` is not one JSON object.
    public init?(_ payload: Data) {
        guard let parsed = try? payload.withUnsafeBytes({ raw throws(JSONParser.Failure) in
            try JSONParser.parse(raw.bindMemory(to: UInt8.self))
        }), case .object = parsed else { return nil }
        object = parsed
    }

    public var isEmpty: Bool { value(nil) == nil }

    public func contains(_ key: String) -> Bool { value(key) != nil }

    /// The member's value when it is a string.
    public func string(_ key: String) -> String? {
        guard case .string(let text)? = value(key) else { return nil }
        return text
    }

    /// The first member named `key` (any member when nil).
    private func value(_ key: String?) -> JSONParsed? {
        guard case .object(let members) = object else { return nil }
        return members.first { key == nil || $0.key == key }?.value
    }
}
