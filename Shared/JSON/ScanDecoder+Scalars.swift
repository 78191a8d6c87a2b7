import Foundation

// The scalars `ScanDecoder` reads from a value's bytes: the types `TreeDecoder.scalar` reads, with
// its results and its kinds of error.
extension ScanDecoder {
    /// `T` read straight from `value`, or nil when `T` is not a scalar type.
    func scalar<T>(_ type: T.Type, _ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> T? {
        if T.self == String.self {
            guard value.kind == .string else { throw mismatch(type, value, path()) }
            return unsafeBitCast(string(value), to: T.self)
        }
        if T.self == Bool.self {
            if starts(value, with: "t") { return unsafeBitCast(true, to: T.self) }
            if starts(value, with: "f") { return unsafeBitCast(false, to: T.self) }
            throw mismatch(type, value, path())
        }
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, value, path()), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try number(type, value, path()).value, to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try integer(Int64.self, value, path()), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try integer(Int32.self, value, path()), to: T.self) }
        if T.self == UInt64.self { return unsafeBitCast(try integer(UInt64.self, value, path()), to: T.self) }
        if T.self == UInt.self { return unsafeBitCast(try integer(UInt.self, value, path()), to: T.self) }
        if T.self == JSONValue.self { return unsafeBitCast(try tree(value), to: T.self) }
        if T.self == [String].self { return unsafeBitCast(try strings(value, path()), to: T.self) }
        if T.self == Float.self { return unsafeBitCast(Float(try number(type, value, path()).value), to: T.self) }
        if T.self == Int8.self { return unsafeBitCast(try integer(Int8.self, value, path()), to: T.self) }
        if T.self == Int16.self { return unsafeBitCast(try integer(Int16.self, value, path()), to: T.self) }
        if T.self == UInt8.self { return unsafeBitCast(try integer(UInt8.self, value, path()), to: T.self) }
        if T.self == UInt16.self { return unsafeBitCast(try integer(UInt16.self, value, path()), to: T.self) }
        if T.self == UInt32.self { return unsafeBitCast(try integer(UInt32.self, value, path()), to: T.self) }
        return nil
    }

    /// A string's text: its bytes, which are ASCII with no escape in the documents read here.
    func string(_ value: Value) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[value.content]), as: UTF8.self)
    }

    /// An integer: plain digits that fit are read here; any other number (`3.0`, beyond the type)
    /// as `TreeDecoder.integer` reads it.
    func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> I {
        guard value.kind == .number else { throw mismatch(type, value, path()) }
        if let exact = digits(value.text, as: I.self) { return exact }
        return try TreeDecoder.integer(type, .number(JSONNumber(text: text(value))), path())
    }

    /// `-?[0-9]+` as an `I`, or nil for other text or a value that does not fit.
    private func digits<I: FixedWidthInteger>(_ range: Range<Int>, as type: I.Type) -> I? {
        var index = range.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative {
            guard I.isSigned else { return nil }
            index += 1
        }
        guard index < range.upperBound else { return nil }
        var result: I = 0
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (shifted, overflow) = result.multipliedReportingOverflow(by: 10)
            let digit = I(byte - 0x30)
            let (next, overflowAgain) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !overflowAgain else { return nil }
            result = next
            index += 1
        }
        return result
    }

    private func number(_ type: Any.Type, _ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> JSONNumber {
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
