import Credentials
import Testing

@Suite("credentials")
struct CredentialsTests {
    @Test func aDerivedKeyIsDerivedOnceAndTheCacheStaysBounded() {
        var cache = DerivedKeyCache(limit: 3)
        var derivations = 0
        func key(_ name: String) -> String { cache.key(name) { derivations += 1; return "key-" + name } }
        #expect(key("a") == "key-a" && key("a") == "key-a")
        #expect(derivations == 1, "the second request finds it")
        for name in ["b", "c", "d", "e"] { _ = key(name) }
        #expect(derivations == 5)
        #expect(key("a") == "key-a" && derivations == 6, "past the limit it started over, and derives again")
    }

    @Test func randomKeysHaveTheirLengthAndDiffer() {
        let keys = (0..<1000).map { _ in RandomKey.hex(bytes: 13) }
        #expect(keys.allSatisfy { $0.count == 26 && $0.allSatisfy(\.isHexDigit) })
        #expect(Set(keys).count == 1000)
        #expect(Set(keys.map(\.first)).count > 8, "every hex digit can lead")
    }
}
