import Foundation

/// The Decoder over one value of a JSON document read in place: no tree, no string made for a key,
/// and a string or a number made only when a type asks for that value. `JSONTreeDecoder` hands it the
/// documents it can read, objects in `JSONScanner`'s plain subset with no backslash (so a string is
/// its bytes and a key matches byte for byte), checked whole before any value is read, and gives
/// every other document to `TreeDecoder`.
///
/// Within those documents each read gives what `TreeDecoder` gives and fails where it fails, with the
/// same kind of `DecodingError`, so a type that catches one goes the same way; the wording of its
/// errors is not kept, so a decode that fails here is decoded again by `TreeDecoder`, whose error is
/// the one thrown. It reads a copy of the document that it and its containers keep alive, so a type
/// that keeps its decoder reads what it was given, whatever the caller does with its bytes after.
final class ScanDecoder: Decoder {
    /// The document's bytes, copied once and freed with the last decoder that reads them.
    final class Document {
        let bytes: UnsafeRawBufferPointer

        init(copying source: UnsafeRawBufferPointer) {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: source.count, alignment: 1)
            copy.copyMemory(from: source)
            bytes = UnsafeRawBufferPointer(copy)
        }

        deinit { bytes.deallocate() }
    }

    typealias Value = ScannedDocument.Value
    typealias Field = ScannedDocument.Field

    let document: Document
    var bytes: UnsafeRawBufferPointer { document.bytes }
    let value: Value
    /// The path to this value is the parent's and `key`, put together only when asked for.
    private let parentPath: [any CodingKey]
    private let key: (any CodingKey)?
    var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The object's members in order, read when a keyed container is first asked for; nil before.
    private(set) var fields: [Field]?

    init(_ document: Document, _ value: Value, parentPath: [any CodingKey], key: (any CodingKey)?) {
        self.document = document
        self.value = value
        self.parentPath = parentPath
        self.key = key
    }

    /// A `T` from the object in `bytes`, or nil when the document is not one `ScanDecoder` reads or
    /// `T` does not decode from it (then `TreeDecoder` decodes it and gives the verdict).
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) -> T? {
        try? reading(bytes)?.decode(type)
    }

    /// The decoder of the object in `bytes`, or nil when the document is not one it reads. Its
    /// members are read, which scans the whole document, before any value is.
    static func reading(_ source: UnsafeRawBufferPointer) -> ScanDecoder? {
        guard ScannedDocument.isPlain(source) else { return nil }
        var start = 0, end = source.count
        while start < end, isSpace(source[start]) { start += 1 }
        while end > start, isSpace(source[end - 1]) { end -= 1 }
        guard start < end, source[start] == UInt8(ascii: "{") else { return nil }
        let decoder = ScanDecoder(Document(copying: source), Value(kind: .other, text: start..<end), parentPath: [], key: nil)
        return decoder.readFields() ? decoder : nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// The decoder of `value`, a value inside this one, reached by `key`.
    func child(_ value: Value, _ key: any CodingKey) -> ScanDecoder {
        ScanDecoder(document, value, parentPath: codingPath, key: key)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalar = try scalar(type, value, codingPath) { return scalar }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard starts(value, with: "{") else { throw mismatch([String: Any].self, value, codingPath) }
        guard readFields() else { throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not an object")) }
        return KeyedDecodingContainer(KeyedScanDecoding<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard starts(value, with: "[") else { throw mismatch([Any].self, value, codingPath) }
        return UnkeyedScanDecoding(decoder: self, items: try items(of: value))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleScanDecoding(decoder: self) }

    /// Reads this object's members once; false when they are not an object in the subset.
    private func readFields() -> Bool {
        if fields != nil { return true }
        fields = ScannedDocument.fields(of: value.text, in: bytes)
        return fields != nil
    }

    /// The first member named `name` (the tree keeps the first of a key given twice). The document's
    /// keys are ASCII, equal to an ASCII name only byte for byte; a name outside ASCII may still equal
    /// one as a `String` does (the Kelvin sign is `K`), so it is compared as the tree compares it.
    func field(_ name: String) -> Value? {
        guard let fields else { return nil }
        var bytesOfName = name
        return bytesOfName.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 >= 0x80 }) else { return fields.first { keyText($0) == name }?.value }
            return ScannedDocument.first(named: utf8, in: fields, of: bytes)
        }
    }

    func keyText(_ field: Field) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[field.key]), as: UTF8.self) }

    /// The items of the array `value`.
    func items(of value: Value) throws -> [Value] {
        guard let items = ScannedDocument.items(of: value.text, in: bytes) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not an array"))
        }
        return items
    }

    func starts(_ value: Value, with byte: Unicode.Scalar) -> Bool {
        value.kind == .other && !value.text.isEmpty && bytes[value.text.lowerBound] == UInt8(ascii: byte)
    }
}
