/// A JSON number as its text, so a 64-bit integer is read and written exactly (a `seq` beyond 2^53
/// comes back unchanged, `UInt64.max` is written in full, as Foundation does). Two numbers are equal
/// when their values are: `1`, `1.0` and `1e0` are one number.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// RFC 8259's grammar for a finite value; `nan`, `inf` or `-inf` for a Double that is not finite,
    /// which the encoder refuses to write.
    public let text: String

    /// `text` is a JSON number: the parser's, or an integer's digits.
    init(text: String) { self.text = text }

    init<Integer: FixedWidthInteger>(_ value: Integer) { text = String(value) }

    /// Whole numbers without a fraction below 10^15, others in Swift's shortest round-trip form, as
    /// Foundation writes a Double.
    init(_ value: Double) {
        if value.rounded() == value, abs(value) < 1e15 {
            text = String(Int64(value))
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        self.text = text
    }

    /// The value, read as Foundation reads it (a whole number through Int64 when it fits).
    public var value: Double {
        if let whole = Int64(text) { return Double(whole) }
        return Double(text) ?? .nan
    }

    /// Whether the value is finite; every JSON number is, and ends in a digit, as `nan` and `inf` do not.
    public var isFinite: Bool {
        guard let last = text.utf8.last else { return false }
        return last >= 0x30 && last <= 0x39
    }

    /// A whole number of at most 15 digits and no `-0`: the value's own text, so nothing to rewrite.
    var isShortInteger: Bool {
        var digits = text.utf8[...]
        if digits.first == UInt8(ascii: "-") {
            digits = digits.dropFirst()
            if digits.first == UInt8(ascii: "0") { return false }
        }
        return !digits.isEmpty && digits.count <= 15 && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    public static func == (a: JSONNumber, b: JSONNumber) -> Bool { a.value == b.value }

    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

    public var description: String { text }
}
