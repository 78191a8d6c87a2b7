// The containers `TreeDecoder` hands out, over an object's fields, an array's items or one value.

struct KeyedTreeDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: [(key: String, value: JSONValue)]
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }

    var allKeys: [Key] { fields.compactMap { Key(stringValue: $0.key) } }

    /// The first field of that name (Foundation keeps the first of duplicate keys too).
    private func find(_ key: Key) -> JSONValue? {
        let name = key.stringValue
        for field in fields where field.key == name { return field.value }
        return nil
    }

    private func require(_ key: Key) throws -> JSONValue {
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

    /// The member named `super`, as Foundation's decoder reads it, whatever the key type makes of
    /// that name (it may have no key for it).
    func superDecoder() throws -> any Decoder {
        TreeDecoder(fields.first { $0.key == "super" }?.value ?? .null, path: path)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { TreeDecoder(find(key) ?? .null, path: path + [key]) }
}

struct UnkeyedTreeDecoding: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let path: [any CodingKey]
    var currentIndex = 0
    var codingPath: [any CodingKey] { path }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONValue], path: [any CodingKey]) {
        self.items = items
        self.path = path
    }

    private func next(_ type: Any.Type) throws -> JSONValue {
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

struct SingleTreeDecoding: SingleValueDecodingContainer {
    let decoder: TreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        if case .null = decoder.value { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}

/// An item's place in an array, in a coding path (an error's `tags[1]`).
public struct IndexKey: CodingKey {
    let index: Int
    public var intValue: Int? { index }
    public var stringValue: String { "Index \(index)" }
    public init(_ index: Int) { self.index = index }
    public init?(stringValue: String) { nil }
    public init?(intValue: Int) { self.init(intValue) }
}
