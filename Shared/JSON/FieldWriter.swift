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
/// again), compact, strings escaped by the one `JSONWriter`. Each value is written once, as it is
/// given; only the keys are sorted. Keys are ASCII (coding keys' names): two spellings of one
/// non-ASCII name are one key to the tree and two here, so a non-ASCII key traps in debug builds.
public struct FieldWriter {
    private struct Member {
        /// The key's UTF-8 in `keys`.
        var key: Range<Int>
        /// The value's JSON in `values`.
        var value: Range<Int>
    }

    /// The keys' UTF-8, one after another.
    private var keys: [UInt8] = []
    /// The values, one after another.
    private var values = JSONWriter()
    /// Each member's key and value, in the order given.
    private var members: [Member] = []

    public init() {
        keys.reserveCapacity(128)
        members.reserveCapacity(8)
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
        member(key) { $0.append(String(value)) }
    }

    public mutating func writeIfPresent(_ value: (some BinaryInteger)?, for key: some CodingKey) {
        if let value { write(value, for: key) }
    }

    public mutating func write(_ value: Bool, for key: some CodingKey) {
        member(key) { $0.append(value ? "true" : "false") }
    }

    /// The object: `{`, the members in their keys' byte order, `}`.
    public func data() -> Data {
        keys.withUnsafeBufferPointer { keys in
            func precedes(_ a: Member, _ b: Member) -> Bool {
                UnsafeBufferPointer(rebasing: keys[a.key]).precedesInByteOrder(UnsafeBufferPointer(rebasing: keys[b.key]))
            }
            var sorted = members
            // Insertion sort: a reply or an event has a handful of members.
            for next in sorted.indices.dropFirst() {
                var index = next
                while index > 0, precedes(sorted[index], sorted[index - 1]) {
                    sorted.swapAt(index, index - 1)
                    index -= 1
                }
            }
            var object = JSONWriter()
            object.bytes.reserveCapacity(values.bytes.count + keys.count + 4 * members.count + 2)
            object.bytes.append(UInt8(ascii: "{"))
            values.bytes.withUnsafeBufferPointer { values in
                for (position, member) in sorted.enumerated() {
                    if position > 0 { object.bytes.append(UInt8(ascii: ",")) }
                    object.writeString(utf8: UnsafeBufferPointer(rebasing: keys[member.key]))
                    object.bytes.append(UInt8(ascii: ":"))
                    object.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: values[member.value]))
                }
            }
            object.bytes.append(UInt8(ascii: "}"))
            return Data(object.bytes)
        }
    }

    /// Writes a member's value with `write`; a key given before keeps this value instead.
    private mutating func member(_ key: some CodingKey, _ write: (inout JSONWriter) -> Void) {
        let start = values.bytes.count
        write(&values)
        let value = start..<values.bytes.count
        var name = key.stringValue
        let keyStart = keys.count
        name.withUTF8 { utf8 in
            assert(utf8.allSatisfy { $0 < 0x80 }, "a FieldWriter key is ASCII: \(key.stringValue)")
            keys.append(contentsOf: utf8)
        }
        let added = keyStart..<keys.count
        let earlier = keys.withUnsafeBufferPointer { keys in
            members.firstIndex { member in
                member.key.count == added.count
                    && (added.isEmpty || memcmp(keys.baseAddress! + member.key.lowerBound, keys.baseAddress! + keyStart, added.count) == 0)
            }
        }
        if let earlier {
            members[earlier].value = value
        } else {
            members.append(Member(key: added, value: value))
        }
    }
}
