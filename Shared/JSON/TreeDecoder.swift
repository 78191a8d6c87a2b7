import Foundation

/// The Decoder over one node of a `JSONValue`, and the reading of scalars that its containers share.
final class TreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, path: [any CodingKey]) {
        self.value = value
        codingPath = path
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalar = try Self.scalar(type, value, codingPath) { return scalar }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw Self.mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedTreeDecoding<Key>(fields: object.members, path: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw Self.mismatch([Any].self, value, codingPath) }
        return UnkeyedTreeDecoding(items: items, path: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleTreeDecoding(decoder: self) }

    /// `T` read straight from a scalar, or nil when `T` is not a scalar type.
    static func scalar<T>(_ type: T.Type, _ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> T? {
        if T.self == String.self {
            guard case .string(let text) = value else { throw mismatch(type, value, path()) }
            return unsafeBitCast(text, to: T.self)
        }
        if T.self == Bool.self {
            guard case .bool(let flag) = value else { throw mismatch(type, value, path()) }
            return unsafeBitCast(flag, to: T.self)
        }
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, value, path()), to: T.self) }
        if T.self == Double.self {
            guard case .number(let number) = value else { throw mismatch(type, value, path()) }
            return unsafeBitCast(number.value, to: T.self)
        }
        if T.self == Int64.self { return unsafeBitCast(try integer(Int64.self, value, path()), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try integer(Int32.self, value, path()), to: T.self) }
        if T.self == UInt64.self { return unsafeBitCast(try integer(UInt64.self, value, path()), to: T.self) }
        if T.self == UInt.self { return unsafeBitCast(try integer(UInt.self, value, path()), to: T.self) }
        if T.self == JSONValue.self { return unsafeBitCast(value, to: T.self) }
        if T.self == [String].self { return unsafeBitCast(try strings(value, path()), to: T.self) }
        if T.self == Float.self {
            guard case .number(let number) = value else { throw mismatch(type, value, path()) }
            return unsafeBitCast(Float(number.value), to: T.self)
        }
        // The narrower integers too: their own `init(from:)` asks the single-value container for
        // their type, which would come back here, again and again.
        if T.self == Int8.self { return unsafeBitCast(try integer(Int8.self, value, path()), to: T.self) }
        if T.self == Int16.self { return unsafeBitCast(try integer(Int16.self, value, path()), to: T.self) }
        if T.self == UInt8.self { return unsafeBitCast(try integer(UInt8.self, value, path()), to: T.self) }
        if T.self == UInt16.self { return unsafeBitCast(try integer(UInt16.self, value, path()), to: T.self) }
        if T.self == UInt32.self { return unsafeBitCast(try integer(UInt32.self, value, path()), to: T.self) }
        return nil
    }

    /// A list of strings (tags, registration IDs) read in one pass into a list of the right size,
    /// with the errors `Array.init(from:)` through an unkeyed container would throw.
    static func strings(_ value: JSONValue, _ path: [any CodingKey]) throws -> [String] {
        guard case .array(let items) = value else { throw mismatch([Any].self, value, path) }
        var result: [String] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else { throw mismatch(String.self, item, path + [IndexKey(index)]) }
            result.append(text)
        }
        return result
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> I {
        guard case .number(let number) = value else { throw mismatch(type, value, path) }
        // The digits first, so a 64-bit integer is exact; then the value, as `3.0` or `1e3` are whole too.
        if let exact = I(number.text) { return exact }
        if let exact = I(exactly: number.value) { return exact }
        throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "number \(number.value) does not fit in \(I.self)"))
    }

    /// What a mismatch message calls this kind of value.
    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null"))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(kind(of: value))"))
    }
}
