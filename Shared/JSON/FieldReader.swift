import Foundation

/// A payload type that reads its few fields straight from the bytes of a request, with no `Decoder`:
/// for the payloads nearly every request carries (a Codable decode of one cost a tenth of the tagging
/// worker's instructions, most of it the generic machinery around three fields; docs/benchmarks.md).
///
/// `init(fields:)` is a fast path beside `init(from:)`, never a second definition: for every document
/// it reads, it must give what `init(from:)` gives, and where it cannot say (a field of another type,
/// a null inside a list) it declines by throwing, and `init(from:)` decodes the document and gives
/// the verdict, or the error. Tests decode each conforming type both ways over the same documents.
public protocol FieldReadable: Decodable {
    init(fields: FieldReader) throws(FieldReader.Decline)
}

/// The members of one JSON object, found in place as `ScanDecoder` finds them (`ScannedDocument`),
/// read by key as the synthesized `init(from:)` reads them: the first member of a key given twice
/// (as the tree keeps it), absent or null as nil. Only documents in the scanner's plain subset with
/// no backslash at all are read, so a string is its bytes and a key is equal to a name exactly when
/// their bytes are. Lives for one call of `read`.
public struct FieldReader {
    /// Thrown where the reader cannot give what `init(from:)` would; the caller decodes the usual way.
    public struct Decline: Error {
        public init() {}
    }

    private let bytes: UnsafeRawBufferPointer
    private let fields: [ScannedDocument.Field]

    private init(bytes: UnsafeRawBufferPointer, fields: [ScannedDocument.Field]) {
        self.bytes = bytes
        self.fields = fields
    }

    /// What `body` makes of the object in `data`; nil when the document is not one the reader reads
    /// or `body` declines.
    public static func read<T>(_ data: Data, _ body: (FieldReader) throws(Decline) -> T) -> T? {
        data.withUnsafeBytes { bytes -> T? in
            guard ScannedDocument.isPlain(bytes), let fields = ScannedDocument.fields(of: 0..<bytes.count, in: bytes) else { return nil }
            return try? body(FieldReader(bytes: bytes, fields: fields))
        }
    }

    /// `T` read from the object in `data` when the reader can read it, else decoded the usual way
    /// (`JSONTreeDecoder`), which then gives the value or the error.
    public static func decode<T: FieldReadable>(_ type: T.Type, from data: Data) throws -> T {
        if let read = read(data, { fields throws(Decline) in try T(fields: fields) }) { return read }
        return try JSONTreeDecoder().decode(T.self, from: data)
    }

    /// A `String?` field: nil when absent or null; declines any value but a string.
    public func string(_ key: some CodingKey) throws(Decline) -> String? {
        guard let value = value(key), value.kind != .null else { return nil }
        guard value.kind == .string else { throw Decline() }
        return text(value.content)
    }

    /// A `[String]?` field: nil when absent or null; declines any value but an array of strings.
    public func strings(_ key: some CodingKey) throws(Decline) -> [String]? {
        guard let value = value(key), value.kind != .null else { return nil }
        guard value.kind == .other, bytes[value.text.lowerBound] == UInt8(ascii: "["),
              let items = ScannedDocument.items(of: value.text, in: bytes), items.allSatisfy({ $0.kind == .string }) else { throw Decline() }
        return items.map { text($0.content) }
    }

    /// A `Bool?` field: nil when absent or null; declines any value but `true` or `false`.
    public func bool(_ key: some CodingKey) throws(Decline) -> Bool? {
        guard let value = value(key), value.kind != .null else { return nil }
        // A scanned `.other` that starts with `t` or `f` is the literal the scanner checked whole.
        guard value.kind == .other else { throw Decline() }
        switch bytes[value.text.lowerBound] {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: throw Decline()
        }
    }

    /// An `Int?` field: nil when absent or null; declines anything but plain digits that fit (a
    /// `3.0` or an exponent is left to the decoder, which has its own rules for them).
    public func integer(_ key: some CodingKey) throws(Decline) -> Int? {
        guard let value = value(key), value.kind != .null else { return nil }
        guard value.kind == .number, let integer = JSONScanner.integer(UnsafeRawBufferPointer(rebasing: bytes[value.text]), as: Int.self) else {
            throw Decline()
        }
        return integer
    }

    /// The first member named `key` (a coding key's name, ASCII).
    private func value(_ key: some CodingKey) -> ScannedDocument.Value? {
        var name = key.stringValue
        return name.withUTF8 { utf8 in
            assert(utf8.allSatisfy { $0 < 0x80 }, "a FieldReader key is ASCII: \(key.stringValue)")
            return ScannedDocument.first(named: utf8, in: fields, of: bytes)
        }
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
