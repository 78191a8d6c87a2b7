import Foundation

extension String {
    /// Whether this string's UTF-8 bytes sort before `other`'s: the order of Foundation's `.sortedKeys`
    /// (by Unicode scalar, which UTF-8 bytes sort the same way), compared with `memcmp`. The same answer
    /// as `utf8.lexicographicallyPrecedes(other.utf8)`, which walks the views a byte at a time.
    public func precedesInByteOrder(_ other: String) -> Bool {
        var a = self, b = other
        return a.withUTF8 { x in b.withUTF8 { y in x.precedesInByteOrder(y) } }
    }
}

extension String {
    /// Whether the two are the same UTF-8 bytes. `==` compares by Unicode canonical equivalence
    /// ("K" equals KELVIN SIGN, "é" equals "e" and a combining acute to it), which a value that goes
    /// on the wire as bytes (a header, a body) must not: one must never stand in for the other.
    public func hasSameBytes(as other: String) -> Bool {
        var a = self, b = other
        return a.withUTF8 { x in
            b.withUTF8 { y in x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes sort before `other`: by the first byte that differs, else the shorter first.
    func precedesInByteOrder(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        let shared = Swift.min(count, other.count)
        let order = shared == 0 ? 0 : memcmp(baseAddress!, other.baseAddress!, shared)
        return order < 0 || (order == 0 && count < other.count)
    }
}
