import Foundation

/// The wire's JSON decoder: a strict parser and a Decoder over its tree, throwing the same
/// `DecodingError` cases as Foundation's `JSONDecoder` (so `WireCodec` tells a missing field from a
/// wrong type the same way), at a fraction of the cost. `WireCodec.decode` uses it.
public struct JSONTreeDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let parsed: JSONParsed
        do {
            parsed = try data.withUnsafeBytes { raw throws(JSONParser.Failure) in
                try JSONParser.parse(raw.bindMemory(to: UInt8.self))
            }
        } catch let failure as JSONParser.Failure {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not valid JSON: \(failure.reason) at byte \(failure.offset)"))
        }
        return try TreeDecoder(parsed, path: []).decode(T.self)
    }
}

final class TreeDecoder: Decoder {
    let value: JSONParsed
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONParsed, path: [any CodingKey]) {
        self.value = value
        codingPath = path
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalar = try Self.scalar(type, value, codingPath) { return scalar }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let fields) = value else { throw Self.mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedTreeDecoding<Key>(fields: fields, path: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw Self.mismatch([Any].self, value, codingPath) }
        return UnkeyedTreeDecoding(items: items, path: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleTreeDecoding(decoder: self) }

    /// `T` read straight from a scalar, or nil when `T` is not a scalar type.
    static func scalar<T>(_ type: T.Type, _ value: JSONParsed, _ path: @autoclosure () -> [any CodingKey]) throws -> T? {
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
            guard case .number(let number, _) = value else { throw mismatch(type, value, path()) }
            return unsafeBitCast(number, to: T.self)
        }
        if T.self == Int64.self { return unsafeBitCast(try integer(Int64.self, value, path()), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try integer(Int32.self, value, path()), to: T.self) }
        if T.self == UInt64.self { return unsafeBitCast(try integer(UInt64.self, value, path()), to: T.self) }
        if T.self == UInt.self { return unsafeBitCast(try integer(UInt.self, value, path()), to: T.self) }
        if T.self == Float.self {
            guard case .number(let number, _) = value else { throw mismatch(type, value, path()) }
            return unsafeBitCast(Float(number), to: T.self)
        }
        return nil
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONParsed, _ path: [any CodingKey]) throws -> I {
        guard case .number(let number, let whole) = value else { throw mismatch(type, value, path) }
        if let whole, let exact = I(exactly: whole) { return exact }
        if let exact = I(exactly: number) { return exact }
        throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "number \(number) does not fit in \(I.self)"))
    }

    static func mismatch(_ type: Any.Type, _ value: JSONParsed, _ path: [any CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null"))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(value.kind)"))
    }
}

extension JSONParsed {
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

private struct KeyedTreeDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: [(key: String, value: JSONParsed)]
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }

    var allKeys: [Key] { fields.compactMap { Key(stringValue: $0.key) } }

    /// The first field of that name (Foundation keeps the first of duplicate keys too).
    private func find(_ key: Key) -> JSONParsed? {
        let name = key.stringValue
        for field in fields where field.key == name { return field.value }
        return nil
    }

    private func require(_ key: Key) throws -> JSONParsed {
        guard let value = find(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: path, debugDescription: "no value for \(key.stringValue)"))
        }
        return value
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try require(key) { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = try require(key)
        if let scalar = try TreeDecoder.scalar(type, value, path + [key]) { return scalar }
        return try T(from: TreeDecoder(value, path: path + [key]))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(try require(key), path: path + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(try require(key), path: path + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { TreeDecoder(find(SuperKey.key) ?? .null, path: path) }

    func superDecoder(forKey key: Key) throws -> any Decoder { TreeDecoder(find(key) ?? .null, path: path + [key]) }

    private enum SuperKey {
        static var key: Key { Key(stringValue: "super")! }
    }
}

private struct UnkeyedTreeDecoding: UnkeyedDecodingContainer {
    let items: [JSONParsed]
    let path: [any CodingKey]
    var currentIndex = 0
    var codingPath: [any CodingKey] { path }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONParsed], path: [any CodingKey]) {
        self.items = items
        self.path = path
    }

    private func next(_ type: Any.Type) throws -> JSONParsed {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path + [IndexKey(currentIndex)], debugDescription: "unkeyed container is at end"))
        }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try next(Any?.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try next(type)
        let result: T
        // The item's path is built only when needed: an array of strings decodes with none.
        if let scalar = try TreeDecoder.scalar(type, value, path + [IndexKey(currentIndex)]) {
            result = scalar
        } else {
            result = try T(from: TreeDecoder(value, path: path + [IndexKey(currentIndex)]))
        }
        currentIndex += 1
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try TreeDecoder(try next(type), path: path + [IndexKey(currentIndex)]).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try TreeDecoder(try next([Any].self), path: path + [IndexKey(currentIndex)]).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = TreeDecoder(try next(Any.self), path: path + [IndexKey(currentIndex)])
        currentIndex += 1
        return decoder
    }
}

private struct SingleTreeDecoding: SingleValueDecodingContainer {
    let decoder: TreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        if case .null = decoder.value { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}

struct IndexKey: CodingKey {
    let index: Int
    var intValue: Int? { index }
    var stringValue: String { "Index \(index)" }
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.init(intValue) }
}
