import Credentials
import Testing

@Suite("credentials")
struct CredentialsTests {
    @Test func aDerivedKeyIsDerivedOnceAndTheCacheStaysBounded() {
        // Each entry below costs about 70 bytes (name, key, 64 of overhead): twenty fit in 1400.
        var cache = DerivedKeyCache(byteLimit: 1400)
        var derivations = 0
        func key(_ name: String) -> String { cache.key(name) { derivations += 1; return "key-" + name } }
        #expect(key("a") == "key-a" && key("a") == "key-a")
        #expect(derivations == 1, "the second request finds it")
        for n in 10..<30 { _ = key(String(n)) }
        #expect(derivations == 21)
        #expect(key("a") == "key-a" && derivations == 22, "past the limit it started over, and derives again")
        var verified = DerivedKeyCache(byteLimit: 1400)
        #expect(verified.key("x") == nil, "nothing is remembered until told")
        verified.remember("key-x", as: "x")
        #expect(verified.key("x") == "key-x")
        verified.remember("k", as: String(repeating: "n", count: 40))
        #expect(verified.key(String(repeating: "n", count: 40)) == nil, "an entry over a sixteenth of the limit is not kept")
    }

    @Test func randomKeysHaveTheirLengthAndDiffer() {
        let keys = (0..<1000).map { _ in RandomKey.hex(bytes: 13) }
        #expect(keys.allSatisfy { $0.count == 26 && $0.allSatisfy(\.isHexDigit) })
        #expect(Set(keys).count == 1000)
        #expect(Set(keys.map(\.first)).count > 8, "every hex digit can lead")
    }
}
