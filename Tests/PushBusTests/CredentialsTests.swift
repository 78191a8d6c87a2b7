import Credentials
import Foundation
import Testing

@Suite("credentials")
struct CredentialsTests {
    @Test func aDerivedKeyIsDerivedOnceAndTheCacheStaysBounded() {
        // Each entry below costs 70 bytes (a 6-character key, 64 of overhead): twenty fit in 1400.
        var cache = DerivedKeyCache(byteLimit: 1400)
        var derivations = 0
        func key(_ id: String) -> String {
            cache.key(.device(appKey: "ak", registrationID: id)) { derivations += 1; return "key-" + id.suffix(2) }
        }
        #expect(key("a") == "key-a" && key("a") == "key-a")
        #expect(derivations == 1, "the second request finds it")
        for n in 10..<30 { _ = key(String(n)) }
        #expect(derivations == 21)
        #expect(key("a") == "key-a" && derivations == 22, "past the limit it started over, and derives again")
        var verified = DerivedKeyCache(byteLimit: 1400)
        #expect(verified.key(.app("x")) == nil, "nothing is remembered until told")
        verified.remember("key-x", as: .app("x"))
        #expect(verified.key(.app("x")) == "key-x")
        verified.remember(String(repeating: "k", count: 40), as: .app("y"))
        #expect(verified.key(.app("y")) == nil, "an entry over a sixteenth of the limit is not kept")
    }

    @Test func keyNamesTellAppsDevicesAndServicesApart() {
        let names: [KeyName] = [.app("a/b"), .device(appKey: "a", registrationID: "b"), .device(appKey: "a/", registrationID: ""),
                                .device(appKey: "", registrationID: "a/b"), .service("a/b"), .app("a"), .service("a")]
        #expect(Set(names).count == names.count)
        #expect(KeyName.device(appKey: "a", registrationID: "b") == .device(appKey: "a", registrationID: "b"))
    }

    @Test func aSecretFileThatHoldsNoSecretIsNamedInTheError() throws {
        let directory = TestPaths.temporaryDirectory("secrets")
        try Data("short\n".utf8).write(to: URL(fileURLWithPath: "\(directory)/admin.secret"))
        #expect(throws: CredentialsError.unreadableSecret(path: "\(directory)/admin.secret")) { try Secrets.load(directory: directory) }
        #expect(CredentialsError.unreadableSecret(path: "/d/admin.secret").description.hasPrefix("/d/admin.secret does not hold a secret"))
    }

    @Test func randomKeysHaveTheirLengthAndDiffer() {
        let keys = (0..<1000).map { _ in RandomKey.hex(bytes: 13) }
        #expect(keys.allSatisfy { $0.count == 26 && $0.allSatisfy(\.isHexDigit) })
        #expect(Set(keys).count == 1000)
        #expect(Set(keys.map(\.first)).count > 8, "every hex digit can lead")
    }

    @Test func hmacMatchesTheStandardVectorsAndSplitsAnywhere() {
        // RFC 4231 test case 2, and the well-known vector for key "key".
        #expect(HMAC.sha256Hex(key: "Jefe", message: "what do ya want for nothing?")
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let bytes = Array("The quick brown fox jumps over the lazy dog".utf8)
        let whole = HMAC.sha256Hex(key: "key", message: Data(bytes))
        for cut in [0, 1, 20, bytes.count] {
            #expect(HMAC.sha256Hex(key: "key", prefix: Array(bytes[..<cut]), body: Data(bytes[cut...])) == whole)
        }
        #expect(HMAC.sha256Hex(key: "key", message: "The quick brown fox jumps over the lazy dog")
            == "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
        // A proof signs command + "\n" + payload, given in three parts.
        for (command, payload) in [("tags.add", #"{"ts":1}"#), ("", ""), ("x", ""), ("标签", "\u{0}")] {
            #expect(Proof.signature(key: "k", command: command, payload: Data(payload.utf8))
                == HMAC.sha256Hex(key: "k", message: command + "\n" + payload))
        }
        #expect(HMAC.sha256Hex(key: "key", head: "The quick", separator: nil, body: Data(" brown fox jumps over the lazy dog".utf8))
            == "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
        #expect(HMAC.equal("ab", "ab") && HMAC.equal("", "") && !HMAC.equal("ab", "ac") && !HMAC.equal("ab", "abc"))
        // An empty key is a key of its own, never the one the thread's context held before.
        _ = HMAC.sha256Hex(key: "x", message: "")
        #expect(HMAC.sha256Hex(key: "", message: "") == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    /// A key made ready once gives the one-shot MAC every time, whatever ran under it or another key
    /// in between: keys shorter than, as long as and longer than SHA-256's 64-byte block (a longer
    /// one is hashed first), empty messages and separators.
    @Test func aKeyMadeReadyOnceGivesTheOneShotMACEveryTime() {
        #expect(HMAC.sha256Hex(key: HMACKey("Jefe"), head: "what do ya want ", separator: nil, body: Data("for nothing?".utf8))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        var generator = SystemRandomNumberGenerator()
        let texts = [0, 1, 63, 64, 65, 200].map { count in
            String((0..<count).map { _ in Character(UnicodeScalar(UInt8.random(in: 0x21...0x7E, using: &generator))) })
        }
        let keys = texts.map(HMACKey.init)
        for round in 0..<3 {
            for (index, key) in keys.enumerated() {
                let text = texts[(index + round) % texts.count]
                let body = Data((0..<(round * 97 + index * 31)).map { _ in UInt8.random(in: 0...255, using: &generator) })
                for separator in [nil, UInt8(0x0A)] as [UInt8?] {
                    #expect(HMAC.sha256Hex(key: key, head: text, separator: separator, body: body)
                        == HMAC.sha256Hex(key: texts[index], head: text, separator: separator, body: body))
                }
                #expect(Proof.frame(principal: .service(name: "tagging"), key: key, command: text, payload: body)
                    == Proof.frame(principal: .service(name: "tagging"), key: texts[index], command: text, payload: body))
                #expect(Proof.signature(key: key, command: text, payload: body) == Proof.signature(key: texts[index], command: text, payload: body))
            }
        }
    }

    /// The verifier keeps a publisher's key once a proof of it verified, and still checks every
    /// later proof under it: a forged or borrowed seal of a known publisher is refused.
    @Test func aKnownPublishersEventsAreStillEachChecked() {
        let secrets = Secrets(admin: String(repeating: "a", count: 64), serverKey: String(repeating: "5", count: 64))
        var verifier = EventVerifier(secrets: secrets)
        let event = Data(#"{"tags":["a"]}"#.utf8)
        let sealed = EventSeal.proof(topic: "tags.changed", event: event, publisher: "tagging", key: secrets.serviceSecret("tagging"))
        #expect(sealed == EventSeal.proof(topic: "tags.changed", event: event, publisher: "tagging",
                                          key: HMACKey(secrets.serviceSecret("tagging"))))
        for _ in 0..<2 {
            #expect(verifier.publisher(topic: "tags.changed", event: event, proof: sealed) == "tagging")
            #expect(verifier.publisher(topic: "tags.changed", event: Data(#"{"tags":["b"]}"#.utf8), proof: sealed) == nil)
            #expect(verifier.publisher(topic: "alias.changed", event: event, proof: sealed) == nil)
            let borrowed = EventSeal.proof(topic: "tags.changed", event: event, publisher: "tagging", key: secrets.serviceSecret("badge"))
            #expect(verifier.publisher(topic: "tags.changed", event: event, proof: borrowed) == nil)
            let forged = EventSeal.proof(topic: "tags.changed", event: event, publisher: "badge", key: "guessed")
            #expect(verifier.publisher(topic: "tags.changed", event: event, proof: forged) == nil)
        }
    }

    /// The frame written in one buffer (each event's seal) is the frame of the proof made the long way.
    @Test func aFrameWrittenInPlaceIsTheProofsFrame() {
        let principals: [Principal] = [.admin, .app(appKey: "ak"), .device(registrationID: "r-标签-1"), .service(name: "tagging/1")]
        for principal in principals {
            for (command, payload) in [("tags.changed", #"{"ts":1}"#), ("", ""), ("标签", "\u{0}")] {
                #expect(Proof.frame(principal: principal, key: "k", command: command, payload: Data(payload.utf8))
                    == Proof(principal: principal, key: "k", command: command, payload: Data(payload.utf8)).frame)
            }
        }
        let sealed = EventSeal.proof(topic: "tags.changed", event: Data("{}".utf8), publisher: "tagging/0", key: "k")
        #expect(Proof(frame: sealed) == Proof(principal: .service(name: "tagging/0"), key: "k", command: "tags.changed",
                                              payload: Data("{}".utf8)))
    }

    @Test func aProofFrameParsesOnlyInItsOneShape() {
        let signature = String(repeating: "0123456789abcdef", count: 4)
        let proof = Proof(frame: Data("v1 device:r1 \(signature)".utf8))
        #expect(proof == Proof(principal: .device(registrationID: "r1"), signature: signature))
        #expect(Proof(frame: Proof(principal: .app(appKey: "ak"), signature: signature).frame)?.principal == .app(appKey: "ak"))
        #expect(Proof(frame: Data("v1 admin \(signature)".utf8))?.principal == .admin)
        let refused = [
            "v2 admin \(signature)", "v1 admin  \(signature)", "v1  admin \(signature)", "v1 device: \(signature)",
            "v1 app: \(signature)", "v1 user:x \(signature)", "v1 admin \(signature.uppercased())",
            "v1 admin \(signature.dropLast())", "v1 admin \(signature)0", "v1 admin \(signature) ", "v1 \(signature)",
            "v1 device:a b \(signature)", "", "v1",
        ]
        for frame in refused { #expect(Proof(frame: Data(frame.utf8)) == nil, "\(frame)") }
        #expect(Proof(frame: Data("v1 device:".utf8) + Data([0xFF]) + Data(" \(signature)".utf8)) == nil, "not UTF-8")
        #expect(Proof(frame: Data("v1 device:\(String(repeating: "x", count: 450)) \(signature)".utf8)) == nil, "over 512 bytes")
    }
}
