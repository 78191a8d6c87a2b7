/// A field of an update that may be left out (keep), sent as null (remove) or given a value (set).
public enum Patch<Value: Codable & Equatable & Sendable>: Equatable, Sendable {
    case absent
    case null
    case value(Value)

    /// The value when set, nil when absent or null.
    public var wrapped: Value? { if case .value(let v) = self { return v } else { return nil } }
    public var isAbsent: Bool { self == .absent }
}

extension KeyedDecodingContainer {
    /// Reads a field that tells "left out" from "null".
    public func decodePatch<V>(_ type: V.Type, forKey key: Key) throws -> Patch<V> {
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
