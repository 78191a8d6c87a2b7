import Foundation

// The scalars `ScanDecoder` reads from a value's bytes: the types `ScalarSource.scalar` names, with
// `TreeDecoder`'s results and its kinds of error.
extension ScanDecoder {
    /// `T` read straight from `value`, or nil when `T` is not a scalar type.
    func scalar<T>(_ type: T.Type, _ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> T? {
        try Scalar(decoder: self, value: value).scalar(type, path())
    }

    /// A value in the document read as a scalar.
    struct Scalar: ScalarSource {
        let decoder: ScanDecoder
        let value: Value

        func string(_ path: @autoclosure () -> [any CodingKey]) throws -> String {
            guard value.kind == .string else { throw decoder.mismatch(String.self, value, path()) }
            return decoder.string(value)
        }

        func bool(_ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
            if decoder.starts(value, with: "t") { return true }
            if decoder.starts(value, with: "f") { return false }
            throw decoder.mismatch(Bool.self, value, path())
        }

        func integer<I: FixedWidthInteger>(_ type: I.Type, _ path: @autoclosure () -> [any CodingKey]) throws -> I {
            try decoder.integer(type, value, path())
        }

        func number(_ type: Any.Type, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
            try decoder.number(type, value, path()).value
        }

        func tree() throws -> JSONValue { try decoder.tree(value) }

        func strings(_ path: @autoclosure () -> [any CodingKey]) throws -> [String] { try decoder.strings(value, path()) }
    }

    /// A string's text: its bytes, which are ASCII with no escape in the documents read here.
    func string(_ value: Value) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[value.content]), as: UTF8.self)
    }

    /// An integer: plain digits that fit are read here; any other number (`3.0`, beyond the type)
    /// as `TreeDecoder.integer` reads it.
    func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> I {
        guard value.kind == .number else { throw mismatch(type, value, path()) }
        if let exact = JSONScanner.integer(UnsafeRawBufferPointer(rebasing: bytes[value.text]), as: I.self) { return exact }
        return try TreeDecoder.integer(type, .number(JSONNumber(text: text(value))), path())
    }

    func number(_ type: Any.Type, _ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> JSONNumber {
        guard value.kind == .number else { throw mismatch(type, value, path()) }
        return JSONNumber(text: text(value))
    }

    private func text(_ value: Value) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[value.text]), as: UTF8.self) }

    /// The value as the tree holds it, parsed from its text.
    func tree(_ value: Value) throws -> JSONValue {
        guard value.kind != .null else { return .null }
        do throws(JSONParser.Failure) {
            return try JSONParser.parse(UnsafeRawBufferPointer(rebasing: bytes[value.text]).bindMemory(to: UInt8.self))
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: error.reason))
        }
    }

    /// A list of strings, as `TreeDecoder.strings` reads it.
    func strings(_ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> [String] {
        guard starts(value, with: "[") else { throw mismatch([Any].self, value, path()) }
        let items = try items(of: value)
        var result: [String] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard item.kind == .string else { throw mismatch(String.self, item, path() + [IndexKey(index)]) }
            result.append(string(item))
        }
        return result
    }

    /// The error `TreeDecoder.mismatch` throws for this kind of value: null is a missing value.
    func mismatch(_ type: Any.Type, _ value: Value, _ path: [any CodingKey]) -> DecodingError {
        if value.kind == .null { return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null")) }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type)"))
    }
}
