import Foundation

/// A type that writes its own fields, with no `Encoder`: for the replies and events written for nearly
/// every request (a Codable encode of one built a tree through the generic machinery, then sorted it:
/// a tenth of the tagging worker's instructions; docs/benchmarks.md).
///
/// `write(fields:)` is a fast path beside `encode(to:)`, never a second definition: it must write the
/// members `encode(to:)` encodes, with the same values, and `JSONTreeEncoder` and `FieldWriter` then
/// give the same bytes. Tests write each conforming type both ways.
public protocol FieldWritable: Encodable {
    func write(fields: inout FieldWriter)
}

/// Writes one JSON object as `JSONTreeEncoder` writes it, from members given in any order: keys in
/// byte order, a key given twice keeping its last value (as a keyed container that encodes a key
/// again), compact, strings escaped by the one `JSONWriter`. Each member is written once, as
/// `"key":value`, into one buffer; members given in their keys' order (no key twice) are already the
/// object, and only others are put in order, by copying each member's bytes once. Keys are ASCII
/// (coding keys' names): two spellings of one non-ASCII name are one key to the tree and two here, so
/// a non-ASCII key traps in debug builds.
public struct FieldWriter {
    private struct Member {
        /// The key's UTF-8 in `written` (it needs no escape).
        var key: Range<Int>
        /// The whole member, `"key":value`, in `written`.
        var bytes: Range<Int>
    }

    /// The members, `"key":value` each, separated by commas, after the object's `{`.
    private var written = JSONWriter()
    /// Each member's key and bytes, in the order given.
    private var members: [Member] = []
    /// Whether each key given sorts after the one before: then `written` is the object but its `}`.
    private var inKeyOrder = true

    public init() {
        written.bytes.reserveCapacity(256)
        written.bytes.append(UInt8(ascii: "{"))
        members.reserveCapacity(12)
    }

    public mutating func write(_ value: String, for key: some CodingKey) {
        member(key) { $0.writeString(value) }
    }

    /// `null` when nil, as `encode` writes an optional.
    public mutating func write(_ value: String?, for key: some CodingKey) {
        guard let value else { return member(key) { $0.append("null") } }
        write(value, for: key)
    }

    /// Nothing when nil, as `encodeIfPresent` (and a synthesized `encode(to:)`) writes an optional.
    public mutating func writeIfPresent(_ value: String?, for key: some CodingKey) {
        if let value { write(value, for: key) }
    }

    public mutating func write(_ value: [String], for key: some CodingKey) {
        member(key) { writer in
            writer.bytes.append(UInt8(ascii: "["))
            for (index, item) in value.enumerated() {
                if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                writer.writeString(item)
            }
            writer.bytes.append(UInt8(ascii: "]"))
        }
    }

    /// `null` when nil.
    public mutating func write(_ value: [String]?, for key: some CodingKey) {
        guard let value else { return member(key) { $0.append("null") } }
        write(value, for: key)
    }

    public mutating func write(_ value: some BinaryInteger, for key: some CodingKey) {
        member(key) { $0.writeInteger(value) }
    }

    public mutating func writeIfPresent(_ value: (some BinaryInteger)?, for key: some CodingKey) {
        if let value { write(value, for: key) }
    }

    /// `null` when nil, as `encode` writes an optional.
    public mutating func write(_ value: (some BinaryInteger)?, for key: some CodingKey) {
        guard let value else { return member(key) { $0.append("null") } }
        write(value, for: key)
    }

    public mutating func write(_ value: Bool, for key: some CodingKey) {
        member(key) { $0.append(value ? "true" : "false") }
    }

    /// Nothing when nil.
    public mutating func writeIfPresent(_ value: [String]?, for key: some CodingKey) {
        if let value { write(value, for: key) }
    }

    public mutating func writeIfPresent(_ value: Bool?, for key: some CodingKey) {
        if let value { write(value, for: key) }
    }

    /// A number as the encoder writes a `Double` (its shortest text); `null` for one JSON cannot
    /// hold (infinite, NaN), where the encoder would fail the whole value: never given by our types,
    /// which check their numbers when they are made.
    public mutating func write(_ value: Double, for key: some CodingKey) {
        member(key) { $0.append(value.isFinite ? JSONNumber(value).text : "null") }
    }

    public mutating func writeIfPresent(_ value: Double?, for key: some CodingKey) {
        if let value { write(value, for: key) }
    }

    /// A JSON value as the encoder writes one: objects with sorted keys, the first of a key kept,
    /// numbers by their value (`JSONWriter.writeAsWritten`); `null` for a value it cannot write
    /// (a number JSON cannot hold, which no parsed value has).
    public mutating func write(_ value: JSONValue, for key: some CodingKey) {
        member(key) { writer in
            let start = writer.bytes.count
            if (try? writer.writeAsWritten(value, [key])) == nil {
                writer.bytes.removeSubrange(start...)
                writer.append("null")
            }
        }
    }

    /// A dictionary of counts, as the encoder writes one: an object, keys in byte order.
    public mutating func write(_ value: [String: some BinaryInteger], for key: some CodingKey) {
        member(key) { writer in
            writer.bytes.append(UInt8(ascii: "{"))
            for (index, name) in value.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                writer.writeString(name)
                writer.bytes.append(UInt8(ascii: ":"))
                writer.writeInteger(value[name]!)
            }
            writer.bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A dictionary of objects that write their own fields, as the encoder writes one: keys in byte order.
    public mutating func write(_ value: [String: some FieldWritable], for key: some CodingKey) {
        member(key) { writer in
            writer.bytes.append(UInt8(ascii: "{"))
            var item = FieldWriter()
            for (index, name) in value.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                writer.writeString(name)
                writer.bytes.append(UInt8(ascii: ":"))
                item.reset()
                value[name]!.write(fields: &item)
                item.append(to: &writer.bytes)
            }
            writer.bytes.append(UInt8(ascii: "}"))
        }
    }

    /// An object that writes its own fields, as `encode` writes a nested value.
    public mutating func write(_ value: some FieldWritable, for key: some CodingKey) {
        var nested = FieldWriter()
        value.write(fields: &nested)
        member(key) { nested.append(to: &$0.bytes) }
    }

    /// Nothing when nil, as `encodeIfPresent` writes an optional.
    public mutating func writeIfPresent(_ value: (some FieldWritable)?, for key: some CodingKey) {
        if let value { write(value, for: key) }
    }

    /// An array of objects that write their own fields.
    /// One writer serves every item, emptied between them: a batch of a hundred notifications, or
    /// their hundred answers, allocates nothing per item.
    public mutating func write(_ values: [some FieldWritable], for key: some CodingKey) {
        member(key) { writer in
            writer.bytes.append(UInt8(ascii: "["))
            var item = FieldWriter()
            for (index, value) in values.enumerated() {
                if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                item.reset()
                value.write(fields: &item)
                item.append(to: &writer.bytes)
            }
            writer.bytes.append(UInt8(ascii: "]"))
        }
    }

    /// Nothing when nil.
    public mutating func writeIfPresent(_ values: [some FieldWritable]?, for key: some CodingKey) {
        if let values { write(values, for: key) }
    }

    /// `value`'s object, on its own, as `JSONTreeEncoder` writes it.
    public static func object(_ value: some FieldWritable) -> Data {
        var fields = FieldWriter()
        value.write(fields: &fields)
        return fields.data()
    }

    /// Empties the writer for another object, keeping its buffers.
    private mutating func reset() {
        written.bytes.removeAll(keepingCapacity: true)
        written.bytes.append(UInt8(ascii: "{"))
        members.removeAll(keepingCapacity: true)
        inKeyOrder = true
    }

    /// The object: `{`, the members in their keys' byte order, `}`.
    public func data() -> Data {
        guard inKeyOrder else {
            var object = [UInt8]()
            append(to: &object)
            return Data(object)
        }
        return written.bytes.withUnsafeBufferPointer { written in
            var object = Data(count: written.count + 1)
            object.withUnsafeMutableBytes { object in
                object.copyMemory(from: UnsafeRawBufferPointer(written))
                object[written.count] = UInt8(ascii: "}")
            }
            return object
        }
    }

    /// Appends the object (as `data()` gives it) to `object`.
    private func append(to object: inout [UInt8]) {
        written.bytes.withUnsafeBufferPointer { written in
            guard !inKeyOrder else {
                object.append(contentsOf: written)
                object.append(UInt8(ascii: "}"))
                return
            }
            func precedes(_ a: Member, _ b: Member) -> Bool {
                UnsafeBufferPointer(rebasing: written[a.key]).precedesInByteOrder(UnsafeBufferPointer(rebasing: written[b.key]))
            }
            // Insertion sort, stable: a reply or an event has a handful of members, and of a key
            // given twice the later stays after the earlier.
            var sorted = members
            for next in sorted.indices.dropFirst() {
                var index = next
                while index > 0, precedes(sorted[index], sorted[index - 1]) {
                    sorted.swapAt(index, index - 1)
                    index -= 1
                }
            }
            object.reserveCapacity(object.count + written.count + 1)
            object.append(UInt8(ascii: "{"))
            var first = true
            for (position, member) in sorted.enumerated() {
                // A key given again: its last value is the one kept.
                if position + 1 < sorted.count, !precedes(member, sorted[position + 1]) { continue }
                if !first { object.append(UInt8(ascii: ",")) }
                first = false
                object.append(contentsOf: UnsafeBufferPointer(rebasing: written[member.bytes]))
            }
            object.append(UInt8(ascii: "}"))
        }
    }

    /// Writes a member: its key, then its value with `write`.
    private mutating func member(_ key: some CodingKey, _ write: (inout JSONWriter) -> Void) {
        if !members.isEmpty { written.bytes.append(UInt8(ascii: ",")) }
        let start = written.bytes.count
        var name = key.stringValue
        name.withUTF8 { utf8 in
            assert(utf8.allSatisfy { $0 < 0x80 && $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C },
                   "a FieldWriter key is ASCII with nothing to escape: \(key.stringValue)")
            written.writeString(utf8: utf8)
        }
        let keyBytes = start + 1..<written.bytes.count - 1
        written.bytes.append(UInt8(ascii: ":"))
        write(&written)
        if inKeyOrder, let last = members.last {
            inKeyOrder = written.bytes.withUnsafeBufferPointer { written in
                UnsafeBufferPointer(rebasing: written[last.key]).precedesInByteOrder(UnsafeBufferPointer(rebasing: written[keyBytes]))
            }
        }
        members.append(Member(key: keyBytes, bytes: start..<written.bytes.count))
    }
}
