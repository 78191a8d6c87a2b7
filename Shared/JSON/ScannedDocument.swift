import Foundation

/// A document read in place, the way both `ScanDecoder` and `FieldReader` read one: a document in
/// `JSONScanner`'s plain subset with no backslash anywhere, so a string is its bytes and a key equals
/// an ASCII name exactly when their bytes do. Values and members are places in the document (offsets
/// into its bytes), found once and read as asked.
enum ScannedDocument {
    /// Where one value's text is in the document, and what kind of value it is.
    struct Value {
        let kind: JSONScanner.Kind
        /// The whole text, a string's quotes included.
        let text: Range<Int>

        /// What a missing `super` decodes as, as `TreeDecoder` gives `.null`.
        static let null = Value(kind: .null, text: 0..<0)

        /// A string's bytes, between its quotes.
        var content: Range<Int> { kind == .string ? text.lowerBound + 1..<text.upperBound - 1 : text }

        init(kind: JSONScanner.Kind, text: Range<Int>) {
            self.kind = kind
            self.text = text
        }

        /// The value of a member or item the scanner visited, in the document starting at `base`.
        init(_ element: JSONScanner.Member, in base: UnsafeRawPointer) {
            let start = element.value.baseAddress! - base
            kind = element.kind
            text = kind == .string ? start - 1..<start + element.value.count + 1 : start..<start + element.value.count
        }
    }

    struct Field {
        let key: Range<Int>
        let value: Value
    }

    /// Whether `document` holds no backslash: the documents read in place.
    static func isPlain(_ document: UnsafeRawBufferPointer) -> Bool {
        guard let base = document.baseAddress else { return false }
        return memchr(base, Int32(UInt8(ascii: "\\")), document.count) == nil
    }

    /// The members of the object whose text is `range` of `document`, in order; nil when it is not
    /// an object in the scanner's subset.
    static func fields(of range: Range<Int>, in document: UnsafeRawBufferPointer) -> [Field]? {
        guard let base = document.baseAddress else { return nil }
        var fields: [Field] = []
        fields.reserveCapacity(TreeEncoder.expectedFields)
        let isObject = JSONScanner.members(of: UnsafeRawBufferPointer(rebasing: document[range])) { member in
            let key = member.key.baseAddress! - base
            fields.append(Field(key: key..<key + member.key.count, value: Value(member, in: base)))
        }
        return isObject ? fields : nil
    }

    /// The items of the array whose text is `range` of `document`; nil when it is not an array in
    /// the scanner's subset.
    static func items(of range: Range<Int>, in document: UnsafeRawBufferPointer) -> [Value]? {
        guard let base = document.baseAddress else { return nil }
        var items: [Value] = []
        let isArray = JSONScanner.items(of: UnsafeRawBufferPointer(rebasing: document[range])) { items.append(Value($0, in: base)) }
        return isArray ? items : nil
    }

    /// The first of `fields` whose key is `name` (ASCII) byte for byte: the tree keeps the first of
    /// a key given twice.
    static func first(named name: UnsafeBufferPointer<UInt8>, in fields: [Field], of document: UnsafeRawBufferPointer) -> Value? {
        guard let base = document.baseAddress else { return nil }
        for field in fields where field.key.count == name.count {
            if name.isEmpty || memcmp(base + field.key.lowerBound, name.baseAddress!, name.count) == 0 { return field.value }
        }
        return nil
    }
}
