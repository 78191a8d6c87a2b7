import Foundation

/// Reads the top-level members of a JSON object in place, without building a tree or allocating:
/// for hot paths that look at a few fields of a request and pass its bytes on.
///
/// It is a fast path, not a second parser. It accepts only a plain subset of JSON: ASCII bytes,
/// no `\u` escapes, no exponents, numbers of at most 300 characters, nesting at most `maxDepth`
/// deep. Within that subset it accepts exactly what `JSONParser` accepts; anything outside it, or
/// invalid, makes `members` return false, and the caller falls back to the full decoder, which
/// gives the verdict and the error message.
public enum JSONScanner {
    /// Deepest nesting scanned; deeper documents go to the full parser (which allows 512).
    static let maxDepth = 64

    public enum Kind: Equatable, Sendable {
        case string, number, null, other
    }

    /// One top-level member. `key` and a string's `value` are the bytes between the quotes; a
    /// number's `value` is its text. They point into the scanned buffer: use them inside the visit.
    public struct Member {
        public let key: UnsafeRawBufferPointer
        public let kind: Kind
        public let value: UnsafeRawBufferPointer
        /// The key holds a backslash escape, so its bytes are not its text.
        public let keyHasEscape: Bool
        /// The string value holds a backslash escape, so its bytes are not its text.
        public let valueHasEscape: Bool

        /// Whether the key is `name`, byte for byte.
        public func isKey(_ name: StaticString) -> Bool {
            key.count == name.utf8CodeUnitCount && memcmp(key.baseAddress!, name.utf8Start, key.count) == 0
        }

        /// The value as an Int64 when it is an integer without a fraction that fits.
        public var integer: Int64? { kind == .number ? JSONScanner.integer(value, as: Int64.self) : nil }

        /// The string value's text, when it has no escapes.
        public var string: String? {
            guard kind == .string, !valueHasEscape else { return nil }
            return String(decoding: value, as: UTF8.self)
        }
    }

    /// `-?[0-9]+` as an `I`, or nil for any other text (a fraction, an exponent) or a value that does
    /// not fit.
    static func integer<I: FixedWidthInteger>(_ text: UnsafeRawBufferPointer, as type: I.Type) -> I? {
        let negative = text.first == UInt8(ascii: "-")
        guard !negative || I.isSigned else { return nil }
        let digits = text.dropFirst(negative ? 1 : 0)
        guard !digits.isEmpty else { return nil }
        var result: I = 0
        for byte in digits {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (shifted, overflow) = result.multipliedReportingOverflow(by: 10)
            let digit = I(byte - 0x30)
            let (next, overflowAgain) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !overflowAgain else { return nil }
            result = next
        }
        return result
    }

    /// Calls `visit` with each top-level member of the object in `bytes`, in order; returns false
    /// when the document is not an object in the scanner's subset (the caller then uses the parser).
    public static func members(of bytes: UnsafeRawBufferPointer, _ visit: (Member) -> Void) -> Bool {
        elements(of: bytes, keyed: true, visit)
    }

    /// Calls `visit` with each item of the array in `bytes`, in order, as a `Member` with an empty
    /// key; returns false when the document is not an array in the scanner's subset.
    static func items(of bytes: UnsafeRawBufferPointer, _ visit: (Member) -> Void) -> Bool {
        elements(of: bytes, keyed: false, visit)
    }

    /// The members of an object (`keyed`) or the items of an array that is the whole document.
    private static func elements(of bytes: UnsafeRawBufferPointer, keyed: Bool, _ visit: (Member) -> Void) -> Bool {
        let (open, close) = keyed ? (UInt8(ascii: "{"), UInt8(ascii: "}")) : (UInt8(ascii: "["), UInt8(ascii: "]"))
        var cursor = Cursor(bytes: bytes)
        cursor.skipSpace()
        guard cursor.peek == open else { return false }
        cursor.index += 1
        cursor.skipSpace()
        if cursor.peek == close {
            cursor.index += 1
            return cursor.atEndAfterSpace
        }
        while true {
            cursor.skipSpace()
            var key = (range: cursor.index..<cursor.index, escaped: false)
            if keyed {
                guard cursor.peek == UInt8(ascii: "\""), let read = cursor.string() else { return false }
                key = read
                cursor.skipSpace()
                guard cursor.peek == UInt8(ascii: ":") else { return false }
                cursor.index += 1
                cursor.skipSpace()
            }
            let start = cursor.index
            guard let (kind, valueEscaped) = cursor.value(depth: 1) else { return false }
            let range = kind == .string ? (start + 1)..<(cursor.index - 1) : start..<cursor.index
            visit(Member(key: UnsafeRawBufferPointer(rebasing: bytes[key.range]), kind: kind,
                         value: UnsafeRawBufferPointer(rebasing: bytes[range]), keyHasEscape: key.escaped, valueHasEscape: valueEscaped))
            cursor.skipSpace()
            switch cursor.peek {
            case UInt8(ascii: ","): cursor.index += 1
            case close:
                cursor.index += 1
                return cursor.atEndAfterSpace
            default: return false
            }
        }
    }

    /// A position in the document; every method returns nil (or false) outside the subset.
    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        var atEndAfterSpace: Bool {
            mutating get {
                skipSpace()
                return index == bytes.count
            }
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        /// Skips one value; its kind, and for a string whether it holds an escape.
        mutating func value(depth: Int) -> (Kind, Bool)? {
            guard depth <= JSONScanner.maxDepth, let first = peek else { return nil }
            switch first {
            case UInt8(ascii: "\""): return string().map { (.string, $0.escaped) }
            case UInt8(ascii: "{"): return container(depth: depth, close: UInt8(ascii: "}"), keyed: true) ? (.other, false) : nil
            case UInt8(ascii: "["): return container(depth: depth, close: UInt8(ascii: "]"), keyed: false) ? (.other, false) : nil
            case UInt8(ascii: "t"): return literal("true") ? (.other, false) : nil
            case UInt8(ascii: "f"): return literal("false") ? (.other, false) : nil
            case UInt8(ascii: "n"): return literal("null") ? (.null, false) : nil
            default: return number() ? (.number, false) : nil
            }
        }

        /// An object (`keyed`) or array whose opening byte is at `index`.
        mutating func container(depth: Int, close: UInt8, keyed: Bool) -> Bool {
            index += 1
            skipSpace()
            if peek == close {
                index += 1
                return true
            }
            while true {
                skipSpace()
                if keyed {
                    guard peek == UInt8(ascii: "\""), string() != nil else { return false }
                    skipSpace()
                    guard peek == UInt8(ascii: ":") else { return false }
                    index += 1
                    skipSpace()
                }
                guard value(depth: depth + 1) != nil else { return false }
                skipSpace()
                guard let next = peek else { return false }
                if next == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard next == close else { return false }
                index += 1
                return true
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else { return false }
            index += count
            return true
        }

        /// A string whose opening quote is at `index`: the range of its bytes inside the quotes.
        mutating func string() -> (range: Range<Int>, escaped: Bool)? {
            index += 1
            let start = index
            var escaped = false
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return (start..<(index - 1), escaped)
                case UInt8(ascii: "\\"):
                    escaped = true
                    index += 1
                    guard let escape = peek else { return nil }
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 1
                    default:
                        return nil  // `\u` (surrogates to check) and invalid escapes: the parser decides
                    }
                default:
                    guard byte >= 0x20, byte < 0x80 else { return nil }
                    index += 1
                }
            }
            return nil
        }

        /// A number without an exponent, at most 300 characters (the parser's range check starts there).
        mutating func number() -> Bool {
            let start = index
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, isDigit(first) else { return false }
            index += 1
            if first != UInt8(ascii: "0") {
                while let byte = peek, isDigit(byte) { index += 1 }
            }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard let byte = peek, isDigit(byte) else { return false }
                while let byte = peek, isDigit(byte) { index += 1 }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") { return false }
            return index - start <= 300
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    }
}
