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

/// The members of one JSON object, found in place by `JSONScanner`, read by key as the synthesized
/// `init(from:)` reads them: the first member of a key given twice (as the tree keeps it), absent or
/// null as nil. Only documents in the scanner's plain subset with no backslash at all are read, so a
/// string is its bytes and a key is equal to a name exactly when their bytes are. Lives for one call
/// of `read`.
public struct FieldReader {
    /// Thrown where the reader cannot give what `init(from:)` would; the caller decodes the usual way.
    public struct Decline: Error {
        public init() {}
    }

    private struct Field {
        let key: Range<Int>
        let kind: JSONScanner.Kind
        /// A string's bytes between its quotes; any other value's text.
        let value: Range<Int>
    }

    private let bytes: UnsafeRawBufferPointer
    private let fields: [Field]

    private init(bytes: UnsafeRawBufferPointer, fields: [Field]) {
        self.bytes = bytes
        self.fields = fields
    }

    /// What `body` makes of the object in `data`; nil when the document is not one the reader reads
    /// or `body` declines.
    public static func read<T>(_ data: Data, _ body: (FieldReader) throws(Decline) -> T) -> T? {
        data.withUnsafeBytes { bytes -> T? in
            guard let base = bytes.baseAddress, memchr(base, Int32(UInt8(ascii: "\\")), bytes.count) == nil else { return nil }
            var fields: [Field] = []
            fields.reserveCapacity(8)
            let isObject = JSONScanner.members(of: bytes) { member in
                let key = member.key.baseAddress! - base
                let value = member.value.baseAddress.map { $0 - base } ?? 0
                fields.append(Field(key: key..<key + member.key.count, kind: member.kind, value: value..<value + member.value.count))
            }
            guard isObject else { return nil }
            return try? body(FieldReader(bytes: bytes, fields: fields))
        }
    }

    /// A `String?` field: nil when absent or null; declines any value but a string.
    public func string(_ key: some CodingKey) throws(Decline) -> String? {
        guard let field = field(key), field.kind != .null else { return nil }
        guard field.kind == .string else { throw Decline() }
        return text(field.value)
    }

    /// A `[String]?` field: nil when absent or null; declines any value but an array of strings.
    public func strings(_ key: some CodingKey) throws(Decline) -> [String]? {
        guard let field = field(key), field.kind != .null else { return nil }
        guard field.kind == .other, bytes[field.value.lowerBound] == UInt8(ascii: "[") else { throw Decline() }
        var items: [String] = []
        var allStrings = true
        let isArray = JSONScanner.items(of: UnsafeRawBufferPointer(rebasing: bytes[field.value])) { item in
            guard item.kind == .string else { allStrings = false; return }
            items.append(String(decoding: item.value, as: UTF8.self))
        }
        guard isArray, allStrings else { throw Decline() }
        return items
    }

    /// An `Int?` field: nil when absent or null; declines anything but plain digits that fit (a
    /// `3.0` or an exponent is left to the decoder, which has its own rules for them).
    public func integer(_ key: some CodingKey) throws(Decline) -> Int? {
        guard let field = field(key), field.kind != .null else { return nil }
        guard field.kind == .number, let value = JSONScanner.integer(UnsafeRawBufferPointer(rebasing: bytes[field.value]), as: Int.self) else { throw Decline() }
        return value
    }

    /// The first member named `key`. A name is ASCII; a key of the document equals it
    /// only byte for byte (the scanner's subset is ASCII, where `String` equality is byte equality).
    private func field(_ key: some CodingKey) -> Field? {
        var name = key.stringValue
        return name.withUTF8 { name in
            guard let base = bytes.baseAddress else { return nil }
            for field in fields where field.key.count == name.count {
                if name.isEmpty || memcmp(base + field.key.lowerBound, name.baseAddress!, name.count) == 0 { return field }
            }
            return nil
        }
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
