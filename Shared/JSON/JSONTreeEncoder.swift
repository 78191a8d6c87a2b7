import Foundation

/// A JSON encoder for the wire: the same bytes as Foundation's `JSONEncoder` with `.sortedKeys`
/// and `.withoutEscapingSlashes`, at a fraction of the cost, since it skips the generic machinery
/// for the scalars that make up nearly every reply and event. `WireCodec.encode` uses it.
public struct JSONTreeEncoder {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let root = try TreeEncoder.tree(of: value, path: [])
        var writer = JSONWriter()
        try writer.write(root)
        return Data(writer.bytes)
    }
}

/// The Encoder the containers below hand to nested values.
final class TreeEncoder: Encoder {
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var storage: JSONTree?

    init(path: [any CodingKey]) { codingPath = path }

    /// The tree for `value`. Scalars are told apart by their type, which costs a comparison, not a
    /// dynamic cast; everything else encodes itself into a fresh encoder.
    static func tree<T: Encodable>(of value: T, path: [any CodingKey]) throws -> JSONTree {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .integer(String(unsafeBitCast(value, to: Int.self))) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self { return try number(unsafeBitCast(value, to: Double.self), path) }
        if T.self == Int64.self { return .integer(String(unsafeBitCast(value, to: Int64.self))) }
        if T.self == Int32.self { return .integer(String(unsafeBitCast(value, to: Int32.self))) }
        if T.self == UInt64.self { return .integer(String(unsafeBitCast(value, to: UInt64.self))) }
        if T.self == UInt.self { return .integer(String(unsafeBitCast(value, to: UInt.self))) }
        if T.self == Float.self { return try number(Double(unsafeBitCast(value, to: Float.self)), path) }
        if T.self == Data.self { return .string(unsafeBitCast(value, to: Data.self).base64EncodedString()) }
        if T.self == URL.self, let url = value as? URL { return .string(url.absoluteString) }
        let encoder = TreeEncoder(path: path)
        try value.encode(to: encoder)
        return encoder.storage ?? .object(JSONTree.ObjectBox())
    }

    static func number(_ value: Double, _ path: @autoclosure () -> [any CodingKey]) throws -> JSONTree {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(), debugDescription: "\(value) is not valid JSON"))
        }
        return .number(value)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: JSONTree.ObjectBox
        if case .object(let existing)? = storage {
            box = existing
        } else {
            box = JSONTree.ObjectBox()
            storage = .object(box)
        }
        return KeyedEncodingContainer(KeyedTreeContainer(box: box, path: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: JSONTree.ArrayBox
        if case .array(let existing)? = storage {
            box = existing
        } else {
            box = JSONTree.ArrayBox()
            storage = .array(box)
        }
        return UnkeyedTreeContainer(box: box, path: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleTreeContainer(encoder: self) }
}

private struct KeyedTreeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: JSONTree.ObjectBox
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }

    mutating func encodeNil(forKey key: Key) throws { box.set(key.stringValue, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(key.stringValue, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { box.set(key.stringValue, .string(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.set(key.stringValue, .integer(String(value))) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        box.set(key.stringValue, try TreeEncoder.number(value, path + [key]))
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // Nested values see the container's path; building one array per field cost more than the rest.
        box.set(key.stringValue, try TreeEncoder.tree(of: value, path: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONTree.ObjectBox()
        box.set(key.stringValue, .object(nested))
        return KeyedEncodingContainer(KeyedTreeContainer<NestedKey>(box: nested, path: path + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONTree.ArrayBox()
        box.set(key.stringValue, .array(nested))
        return UnkeyedTreeContainer(box: nested, path: path + [key])
    }

    mutating func superEncoder() -> any Encoder { deferredEncoder("super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { deferredEncoder(key.stringValue) }

    private func deferredEncoder(_ key: String) -> any Encoder {
        let cell = JSONTree.Cell()
        box.set(key, .deferred(cell))
        return DeferredEncoder(cell: cell, path: path)
    }
}

private struct UnkeyedTreeContainer: UnkeyedEncodingContainer {
    let box: JSONTree.ArrayBox
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }
    var count: Int { box.items.count }

    mutating func encodeNil() throws { box.items.append(.null) }
    mutating func encode(_ value: String) throws { box.items.append(.string(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        box.items.append(try TreeEncoder.tree(of: value, path: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONTree.ObjectBox()
        box.items.append(.object(nested))
        return KeyedEncodingContainer(KeyedTreeContainer<NestedKey>(box: nested, path: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONTree.ArrayBox()
        box.items.append(.array(nested))
        return UnkeyedTreeContainer(box: nested, path: path)
    }

    mutating func superEncoder() -> any Encoder {
        let cell = JSONTree.Cell()
        box.items.append(.deferred(cell))
        return DeferredEncoder(cell: cell, path: path)
    }
}

private struct SingleTreeContainer: SingleValueEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.storage = .null }
    mutating func encode(_ value: Bool) throws { encoder.storage = .bool(value) }
    mutating func encode(_ value: String) throws { encoder.storage = .string(value) }
    mutating func encode(_ value: Int) throws { encoder.storage = .integer(String(value)) }
    mutating func encode(_ value: Double) throws { encoder.storage = try TreeEncoder.number(value, codingPath) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.storage = try TreeEncoder.tree(of: value, path: codingPath)
    }
}

/// An encoder whose value lands in a cell of its parent (`superEncoder`).
private final class DeferredEncoder: Encoder {
    let cell: JSONTree.Cell
    let inner: TreeEncoder
    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(cell: JSONTree.Cell, path: [any CodingKey]) {
        self.cell = cell
        inner = TreeEncoder(path: path)
    }

    deinit { cell.value = inner.storage }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        defer { cell.value = inner.storage }
        return inner.container(keyedBy: type)
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        defer { cell.value = inner.storage }
        return inner.unkeyedContainer()
    }
    func singleValueContainer() -> any SingleValueEncodingContainer { DeferredSingle(owner: self) }

    private struct DeferredSingle: SingleValueEncodingContainer {
        let owner: DeferredEncoder
        var codingPath: [any CodingKey] { owner.codingPath }
        mutating func encodeNil() throws { owner.cell.value = .null }
        mutating func encode<T: Encodable>(_ value: T) throws {
            owner.cell.value = try TreeEncoder.tree(of: value, path: codingPath)
        }
    }
}
