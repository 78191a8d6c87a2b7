/// A field of an update that may be left out (keep), sent as null (remove) or given a value (set).
///
/// A struct declares `var field: Patch<T>` and keeps its synthesized `Codable`: the container
/// overloads below are more specific than the generic ones, so the synthesized code reads a missing
/// key as `.absent` and writes nothing for it.
public enum Patch<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
    case absent
    case null
    case value(Value)

    /// The value when set, nil when absent or null.
    public var wrapped: Value? { if case .value(let v) = self { return v } else { return nil } }
    public var isAbsent: Bool { self == .absent }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .null : .value(try container.decode(Value.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .absent, .null: try container.encodeNil()
        case .value(let value): try container.encode(value)
        }
    }
}

extension KeyedDecodingContainer {
    /// A missing key is `.absent`, null is `.null`.
    public func decode<V>(_ type: Patch<V>.Type, forKey key: Key) throws -> Patch<V> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(V.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    /// Writes nothing for `.absent`, null for `.null`.
    public mutating func encode<V>(_ patch: Patch<V>, forKey key: Key) throws {
        switch patch {
        case .absent: break
        case .null: try encodeNil(forKey: key)
        case .value(let value): try encode(value, forKey: key)
        }
    }
}
