import Foundation

extension String {
    /// Whether this string's UTF-8 bytes sort before `other`'s: the order of Foundation's `.sortedKeys`
    /// (by Unicode scalar, which UTF-8 bytes sort the same way), compared with `memcmp`. The same answer
    /// as `utf8.lexicographicallyPrecedes(other.utf8)`, which walks the views a byte at a time.
    public func precedesInByteOrder(_ other: String) -> Bool {
        var a = self, b = other
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let shared = Swift.min(x.count, y.count)
                let order = shared == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, shared)
                return order < 0 || (order == 0 && x.count < y.count)
            }
        }
    }
}
