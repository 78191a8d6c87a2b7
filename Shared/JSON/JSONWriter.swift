/// Writes a `JSONValue` as compact JSON, members in the order given (`TreeEncoder` sorts them) and `/`
/// left unescaped, as Foundation's `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes`.
struct JSONWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func write(_ tree: JSONValue) {
        switch tree {
        case .null: append("null")
        case .bool(let value): append(value ? "true" : "false")
        case .number(let number): append(number.text)
        case .string(let text): writeString(text)
        case .array(let items):
            bytes.append(0x5B)
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                write(item)
            }
            bytes.append(0x5D)
        case .object(let object):
            bytes.append(0x7B)
            for (index, field) in object.members.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                writeString(field.key)
                bytes.append(0x3A)
                write(field.value)
            }
            bytes.append(0x7D)
        }
    }

    /// Writes `value` as `write(value.written(path))` would, without building that second tree: numbers
    /// by their value, objects with sorted keys and the first of a key kept. Throws as `written` does.
    mutating func writeAsWritten(_ value: JSONValue, _ path: [any CodingKey]) throws {
        switch value {
        case .null, .bool, .string: write(value)
        case .number(let number):
            if number.isShortInteger {
                append(number.text)
            } else if !writePlainDecimal(number.text) {
                write(try value.written(path))
            }
        case .array(let items):
            bytes.append(0x5B)
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                try writeAsWritten(item, path)
            }
            bytes.append(0x5D)
        case .object(let object):
            let members = object.isSortedOnce ? object.members : object.sorted(keepingLast: false).members
            bytes.append(0x7B)
            for (index, field) in members.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                writeString(field.key)
                bytes.append(0x3A)
                try writeAsWritten(field.value, path)
            }
            bytes.append(0x7D)
        }
    }

    /// Writes a number given in plain decimals (`-?int.frac`, no exponent) of at most 15 significant
    /// digits and at least 0.001 as `written` writes its value, without converting it: its own digits
    /// less the fraction's trailing zeros; with no fraction left, the whole number (`0` for `-0.0`).
    /// Fifteen digits always read back as the same Double, so no shorter text does, and Swift writes
    /// that shortest text in this notation from 0.0001 up to 2^53. False, writing nothing, for other text.
    private mutating func writePlainDecimal(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { digits in
            let isNegative = digits.first == UInt8(ascii: "-")
            var index = isNegative ? 1 : 0
            let whole = index
            while index < digits.count, digits[index] >= 0x30, digits[index] <= 0x39 { index += 1 }
            let wholeDigits = index - whole
            guard wholeDigits > 0, wholeDigits <= 15, index < digits.count, digits[index] == UInt8(ascii: ".") else { return false }
            index += 1
            let fraction = index
            while index < digits.count, digits[index] >= 0x30, digits[index] <= 0x39 { index += 1 }
            guard index == digits.count else { return false }
            var end = index
            while end > fraction, digits[end - 1] == UInt8(ascii: "0") { end -= 1 }
            let isZero = wholeDigits == 1 && digits[whole] == UInt8(ascii: "0")
            if end == fraction {
                if isZero { bytes.append(UInt8(ascii: "0")) } else { bytes += digits[0..<whole + wholeDigits] }
                return true
            }
            var significant = end - fraction
            if isZero {
                let zeros = digits[fraction..<end].prefix { $0 == UInt8(ascii: "0") }.count
                guard zeros <= 2 else { return false }
                significant -= zeros
            } else {
                significant += wholeDigits
            }
            guard significant <= 15 else { return false }
            bytes += digits[0..<end]
            return true
        }
    }

    /// Literal text (`null`, `true`, `false`), copied whole.
    mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A number's text, copied whole (the UTF-8 view is appended a byte at a time).
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// An integer's decimal digits, written straight in (its `String` cost a conversion and a copy).
    mutating func writeInteger(_ value: some BinaryInteger) {
        guard let value = Int64(exactly: value) else { return append(String(value)) }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    mutating func writeString(_ text: String) {
        var text = text
        text.withUTF8 { writeString(utf8: $0) }
    }

    /// A string given as its UTF-8.
    mutating func writeString(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(0x22)
        // Runs of bytes that need no escape are copied whole: most keys and values are one run.
        var run = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
            writeEscape(byte)
            run = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        bytes.append(0x22)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func writeEscape(_ byte: UInt8) {
        switch byte {
        case 0x22: bytes += [0x5C, 0x22]
        case 0x5C: bytes += [0x5C, 0x5C]
        case 0x08: bytes += [0x5C, 0x62]
        case 0x0C: bytes += [0x5C, 0x66]
        case 0x0A: bytes += [0x5C, 0x6E]
        case 0x0D: bytes += [0x5C, 0x72]
        case 0x09: bytes += [0x5C, 0x74]
        default: bytes += [0x5C, 0x75, 0x30, 0x30, Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]]
        }
    }
}
