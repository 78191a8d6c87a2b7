// The containers `ScanDecoder` hands out, over an object's members, an array's items or one value:
// the reads of `TreeDecoder`'s containers, on values found in place.

struct KeyedScanDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ScanDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { (decoder.fields ?? []).compactMap { Key(stringValue: decoder.keyText($0)) } }

    private func require(_ key: Key) throws -> ScanDecoder.Value {
        guard let value = decoder.field(key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
        }
        return value
    }

    func contains(_ key: Key) -> Bool { decoder.field(key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try require(key).kind == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = try require(key)
        if let scalar = try decoder.scalar(type, value, codingPath + [key]) { return scalar }
        return try T(from: decoder.child(value, key))
    }

    /// One look-up, where the protocol's default asks `contains`, `decodeNil` and `decode` in turn.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = decoder.field(key.stringValue), value.kind != .null else { return nil }
        if let scalar = try decoder.scalar(type, value, codingPath + [key]) { return scalar }
        return try T(from: decoder.child(value, key))
    }

    // The scalars of nearly every request, read without the generic path's type tests.
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(scalar: type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(scalar: type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(scalar: type, forKey: key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(scalar: type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(scalar: type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeIfPresent(scalar: type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeIfPresent(scalar: type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeIfPresent(scalar: type, forKey: key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeIfPresent(scalar: type, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeIfPresent(scalar: type, forKey: key) }

    /// A type `ScanDecoder.scalar` reads.
    private func decode<T>(scalar type: T.Type, forKey key: Key) throws -> T {
        try decoder.scalar(type, try require(key), codingPath + [key])!
    }

    private func decodeIfPresent<T>(scalar type: T.Type, forKey key: Key) throws -> T? {
        guard let value = decoder.field(key.stringValue), value.kind != .null else { return nil }
        return try decoder.scalar(type, value, codingPath + [key])!
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(try require(key), key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try require(key), key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ScanDecoder(decoder.document, decoder.field("super") ?? .null, parentPath: codingPath, key: nil)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(decoder.field(key.stringValue) ?? .null, key) }
}

struct UnkeyedScanDecoding: UnkeyedDecodingContainer {
    let decoder: ScanDecoder
    let items: [ScanDecoder.Value]
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(decoder: ScanDecoder, items: [ScanDecoder.Value]) {
        self.decoder = decoder
        self.items = items
    }

    private func next(_ type: Any.Type) throws -> ScanDecoder.Value {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "unkeyed container is at end"))
        }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(Any?.self).kind == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try next(type)
        let key = IndexKey(currentIndex)
        let result = try decoder.scalar(type, value, codingPath + [key]) ?? T(from: decoder.child(value, key))
        currentIndex += 1
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try decoder.child(try next(type), IndexKey(currentIndex)).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try decoder.child(try next([Any].self), IndexKey(currentIndex)).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = decoder.child(try next(Any.self), IndexKey(currentIndex))
        currentIndex += 1
        return decoder
    }
}

struct SingleScanDecoding: SingleValueDecodingContainer {
    let decoder: ScanDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.kind == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}
