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

    /// `T` read straight from a scalar, or nil when `T` is not a scalar type (`ScalarSource.scalar`).
    static func scalar<T>(_ type: T.Type, _ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> T? {
        try Scalar(value: value).scalar(type, path())
    }

    /// A node of the tree read as a scalar.
    struct Scalar: ScalarSource {
        let value: JSONValue

        func string(_ path: @autoclosure () -> [any CodingKey]) throws -> String {
            guard case .string(let text) = value else { throw mismatch(String.self, value, path()) }
            return text
        }

        func bool(_ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
            guard case .bool(let flag) = value else { throw mismatch(Bool.self, value, path()) }
            return flag
        }

        func integer<I: FixedWidthInteger>(_ type: I.Type, _ path: @autoclosure () -> [any CodingKey]) throws -> I {
            try TreeDecoder.integer(type, value, path())
        }

        func number(_ type: Any.Type, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
            guard case .number(let number) = value else { throw mismatch(type, value, path()) }
            return number.value
        }

        func tree() throws -> JSONValue { value }

        func strings(_ path: @autoclosure () -> [any CodingKey]) throws -> [String] { try TreeDecoder.strings(value, path()) }
    }

    /// A list of strings read in one pass into a list of the right size (`ScalarSource.strings`).
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
        let expected = number.value.rounded() == number.value ? "an integer from \(I.min) to \(I.max)" : "an integer"
        throw ExpectedValue.error(at: path, expected, detail: "number \(number.value) does not fit in \(I.self)")
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
