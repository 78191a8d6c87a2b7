// The containers `TreeEncoder` hands out: each writes into its encoder, never into a copy.

struct KeyedTreeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws { encoder.fields.append((key.stringValue, .null)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.fields.append((key.stringValue, .bool(value))) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.fields.append((key.stringValue, .string(value))) }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.fields.append((key.stringValue, .number(JSONNumber(value)))) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        encoder.fields.append((key.stringValue, try TreeEncoder.number(value, codingPath + [key])))
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // Nested values see the container's path; building one array per field cost more than the rest.
        encoder.fields.append((key.stringValue, try TreeEncoder.tree(of: value, path: codingPath)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.nest(key.stringValue, path: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.nest(key.stringValue, path: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder.nest("super", path: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.nest(key.stringValue, path: codingPath) }
}

struct UnkeyedTreeContainer: UnkeyedEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.items.count }

    mutating func encodeNil() throws { encoder.items.append(.null) }
    mutating func encode(_ value: String) throws { encoder.items.append(.string(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.items.append(try TreeEncoder.tree(of: value, path: codingPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoder.nest(nil, path: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.nest(nil, path: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder.nest(nil, path: codingPath) }
}

struct SingleTreeContainer: SingleValueEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.set(.null) }
    mutating func encode(_ value: Bool) throws { encoder.set(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.set(.string(value)) }
    mutating func encode(_ value: Int) throws { encoder.set(.number(JSONNumber(value))) }
    mutating func encode(_ value: Double) throws { encoder.set(try TreeEncoder.number(value, codingPath)) }
    mutating func encode<T: Encodable>(_ value: T) throws { encoder.set(try TreeEncoder.tree(of: value, path: codingPath)) }
}
