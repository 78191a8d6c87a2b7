/// A JSON document as the codec holds it, the one tree of both directions: `JSONParser` builds it
/// from bytes for `TreeDecoder`, `TreeEncoder` builds it from values for `JSONWriter`.
///
/// It keeps what `JSONValue` (the public value for app-shaped fields) gives up: a number's JSON text,
/// so a 64-bit integer is read and written exactly (a `seq` beyond 2^53 comes back unchanged,
/// `UInt64.max` is written in full, as Foundation does), and an object's fields in order with any
/// key given twice, so parsing hashes nothing and reading takes the first of a key, as Foundation's
/// decoder does. The encoder's objects come out sorted by key with no key twice.
enum JSONTree: Sendable {
    case null
    case bool(Bool)
    /// A number as its JSON text: the grammar of RFC 8259 and a finite value.
    case number(String)
    case string(String)
    case array([JSONTree])
    case object([(key: String, value: JSONTree)])

    /// Whole numbers without a fraction, others in Swift's shortest round-trip form, as Foundation
    /// writes them. `value` is finite.
    init(number value: Double) {
        if value.rounded() == value, abs(value) < 1e15 {
            self = .number(String(Int64(value)))
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        self = .number(text)
    }

    /// The value of a number's text, read as Foundation reads it (a whole number through Int64 when it fits).
    static func double(_ text: String) -> Double {
        if let whole = Int64(text) { return Double(whole) }
        return Double(text) ?? .nan
    }

    /// What a mismatch message calls this kind of value.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
