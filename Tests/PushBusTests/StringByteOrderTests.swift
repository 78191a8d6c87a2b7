import JSON
import Testing

/// `precedesInByteOrder` compares with `memcmp`: it must order strings as their UTF-8 bytes do.
@Suite("String byte order")
struct StringByteOrderTests {
    @Test func ordersAsTheUTF8BytesDo() {
        let pieces = ["", "a", "b", "ab", "a\u{0}", "é", "e\u{301}", "标签", "😀", "Z", "~", "a very long key past fifteen bytes"]
        var strings = pieces
        for a in pieces { for b in pieces { strings.append(a + b) } }
        for a in strings {
            for b in strings {
                #expect(a.precedesInByteOrder(b) == a.utf8.lexicographicallyPrecedes(b.utf8), "\(a.debugDescription) \(b.debugDescription)")
            }
        }
    }
}
