/// Writes a `JSONTree` as compact JSON with object keys sorted (as Foundation's `.sortedKeys`
/// orders them) and `/` left unescaped.
struct JSONWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func write(_ tree: JSONTree) throws {
        switch tree {
        case .null: bytes += [0x6E, 0x75, 0x6C, 0x6C]
        case .bool(let value): bytes += value ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6C, 0x73, 0x65]
        case .integer(let text): bytes += text.utf8
        case .number(let value): writeNumber(value)
        case .string(let text): writeString(text)
        case .array(let box):
            bytes.append(0x5B)
            for (index, item) in box.items.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                try write(item)
            }
            bytes.append(0x5D)
        case .object(let box):
            bytes.append(0x7B)
            // A stable sort keeps fields set twice in the order set; the last of each key is written.
            let sorted = box.fields.enumerated().sorted { a, b in
                Self.precedes(a.element.key, b.element.key) || (a.element.key == b.element.key && a.offset < b.offset)
            }
            var first = true
            for (position, field) in sorted.enumerated() {
                if position + 1 < sorted.count, sorted[position + 1].element.key == field.element.key { continue }
                if !first { bytes.append(0x2C) }
                first = false
                writeString(field.element.key)
                bytes.append(0x3A)
                try write(field.element.value)
            }
            bytes.append(0x7D)
        case .deferred(let cell):
            try write(cell.value ?? .object(JSONTree.ObjectBox()))
        }
    }

    /// Foundation's `.sortedKeys` orders keys by Unicode scalar; UTF-8 bytes sort the same way.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Whole numbers without a fraction, others in Swift's shortest round-trip form, as Foundation writes them.
    private mutating func writeNumber(_ value: Double) {
        if value.rounded() == value, abs(value) < 1e15 {
            bytes += String(Int64(value)).utf8
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes += text.utf8
    }

    private mutating func writeString(_ text: String) {
        bytes.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: bytes += [0x5C, 0x22]
            case 0x5C: bytes += [0x5C, 0x5C]
            case 0x08: bytes += [0x5C, 0x62]
            case 0x0C: bytes += [0x5C, 0x66]
            case 0x0A: bytes += [0x5C, 0x6E]
            case 0x0D: bytes += [0x5C, 0x72]
            case 0x09: bytes += [0x5C, 0x74]
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes += [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }
}
