@testable import Client
import Credentials
import Foundation
import JSON
import Schema
import Testing

@Suite("signer")
struct SignerTests {
    let secrets = Secrets(admin: "admin-secret", serverKey: "server-key")

    /// The signed payload as a dictionary, after checking the proof over its exact bytes.
    private func verified(_ body: [Data], key: String, principal: Principal) throws -> [String: JSONValue] {
        #expect(body.count == 3)
        let proof = try #require(Proof(frame: body[2]))
        #expect(proof.principal == principal)
        #expect(proof.signature == Proof.signature(key: key, command: String(decoding: body[0], as: UTF8.self), payload: body[1]))
        guard case .object(let fields) = try JSONTreeDecoder().decode(JSONValue.self, from: body[1]) else {
            Issue.record("not an object")
            return [:]
        }
        return fields.dictionary
    }

    @Test func aPayloadKeepsItsBytesAndGainsTsAndNonce() throws {
        let signer = Signer(secrets: secrets)
        let payload = Data(#" {"app_key":"ak","registration_id":"r1","tags":["a","b"],"seq":4}"#.utf8)
        let now = Date(timeIntervalSince1970: 1_800_000_000.7)
        let body = signer.sign(command: "tags.add", payload: payload, now: now)
        let key = secrets.deviceSecret(appKey: "ak", registrationID: "r1")
        let fields = try verified(body, key: key, principal: .device(registrationID: "r1"))
        #expect(fields["ts"] == .number(1_800_000_000))
        #expect(fields["nonce"]?.string?.count == 16)
        #expect(fields["tags"] == .array([.string("a"), .string("b")]) && fields["seq"] == .number(4))
        #expect(String(decoding: body[1], as: UTF8.self).hasSuffix(#""app_key":"ak","registration_id":"r1","tags":["a","b"],"seq":4}"#),
                "the members follow as they were sent")
        let again = signer.sign(command: "tags.add", payload: payload, now: now)
        #expect(again[1] != body[1] && again[2] != body[2], "a nonce per request")
    }

    @Test func aPayloadThatCarriesTsOrNonceHasThemReplaced() throws {
        let signer = Signer(secrets: secrets)
        let payload = Data(#"{"app_key":"ak","ts":5,"nonce":"old"}"#.utf8)
        let body = signer.sign(command: "tags.count", payload: payload, now: Date(timeIntervalSince1970: 1_800_000_000))
        let fields = try verified(body, key: secrets.masterSecret(appKey: "ak"), principal: .app(appKey: "ak"))
        #expect(fields["ts"] == .number(1_800_000_000) && fields["nonce"] != .string("old") && fields.count == 3)
    }

    @Test func anEmptyPayloadIsSignedByTheAdminAndUnsignedCommandsPassThrough() throws {
        let signer = Signer(secrets: secrets)
        let body = signer.sign(command: "app.create", payload: Data("{}".utf8))
        let fields = try verified(body, key: "admin-secret", principal: .admin)
        #expect(Set(fields.keys) == ["ts", "nonce"])
        let register = Data(#"{"app_key":"ak"}"#.utf8)
        #expect(signer.sign(command: "device.register", payload: register) == [Data("device.register".utf8), register])
        #expect(Signer().sign(command: "tags.add", payload: Data(#"{"app_key":"ak","registration_id":"r"}"#.utf8)).count == 2,
                "no key known: sent unsigned, for the gateway to refuse")
        #expect(signer.sign(command: "tags.add", payload: Data("[1]".utf8)).count == 2, "not an object")
    }

    @Test func aFirstRegistrationGoesUnsignedAndAReRegistrationIsSignedByItsDevice() throws {
        let signer = Signer()
        let first = Data(#"{"app_key":"ak","platform":"ios","device_id":"d1"}"#.utf8)
        #expect(signer.sign(command: "device.register", payload: first) == [Data("device.register".utf8), first])
        signer.remember(deviceSecret: "device-secret", registrationID: "r1")
        let again = Data(#"{"app_key":"ak","platform":"ios","device_id":"d1","registration_id":"r1"}"#.utf8)
        let fields = try verified(signer.sign(command: "device.register", payload: again), key: "device-secret",
                                  principal: .device(registrationID: "r1"))
        #expect(fields["registration_id"] == .string("r1") && fields["ts"] != nil)
        let operatorSigned = Signer(secrets: secrets).sign(command: "device.register", payload: again)
        _ = try verified(operatorSigned, key: secrets.deviceSecret(appKey: "ak", registrationID: "r1"), principal: .device(registrationID: "r1"))
    }

    @Test func theScannerReadsWhatTheParserReads() {
        let payloads = [
            #"{"app_key":"ak","registration_id":"r1","tags":["a"]}"#, #"{}"#, #" { } "#,
            #"{"registration_id":5,"app_key":"ak"}"#, #"{"registration_id":null}"#, #"{"app_key":["x"]}"#,
            #"{"registration_id":"r1","registration_id":"r2","app_key":"a1","app_key":"a2"}"#,
            #"{"ts":1,"x":{"nonce":2}}"#, #"{"nonce":"n"}"#, #"{"deep":{"registration_id":"r"},"ts":null}"#,
        ]
        for text in payloads {
            let payload = Data(text.utf8)
            let scanned = SigningFields.scan(payload), parsed = SigningFields.parse(payload)
            #expect(scanned != nil && scanned == parsed, "\(text)")
        }
        // Outside the scanner's subset: the parser reads them, and the signer with it.
        for text in [#"{"app_\u006bey":"ak","registration_id":"r1"}"#, #"{"registration_id":"r\u0031"}"#, #"{"a":1e3}"#] {
            let payload = Data(text.utf8)
            #expect(SigningFields.scan(payload) == nil && SigningFields(payload) == SigningFields.parse(payload), "\(text)")
        }
        #expect(SigningFields.parse(Data(#"{"app_\u006bey":"ak"}"#.utf8))?.appKey == "ak")
        #expect(SigningFields(Data("[1]".utf8)) == nil && SigningFields(Data("{".utf8)) == nil)
    }

    @Test func nonceAndTsAreWrittenInPlace() {
        var buffer = [UInt8](repeating: 0, count: 20)
        let lengths = [Int64.min, -1, 0, 7, 1_800_000_000, Int64.max].map { value in
            buffer.withUnsafeMutableBufferPointer { value.writeDecimal(into: $0) }
        }
        #expect(lengths == [20, 2, 1, 1, 10, 19])
        #expect(NonceCounter.hex(0x0123_4567_89ab_cdef) == "0123456789abcdef" && NonceCounter.hex(0) == "0000000000000000")
        var counter = NonceCounter()
        let first = counter.next(), second = counter.next()
        #expect(second == first &+ 1)
    }
}
