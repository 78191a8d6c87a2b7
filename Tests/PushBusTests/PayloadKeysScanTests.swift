import Foundation
@testable import GatewayKit
import Schema
import Testing

/// The gateway reads a request's keys in place (`PayloadKeys.scan`) and falls back to the full
/// decoder when the scanner cannot tell. Whenever the scan answers, it must give what the decoder
/// gives; whenever the decoder refuses a payload, the scan must not answer.
@Suite struct PayloadKeysScanTests {
    /// What the decoder reads, or nil when it refuses the payload.
    private func decoded(_ payload: Data) -> PayloadKeys? {
        try? WireCodec.decode(PayloadKeys.self, from: payload)
    }

    private func expectAgreement(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let payload = Data(text.utf8)
        guard let scanned = PayloadKeys.scan(payload) else { return }
        let full = decoded(payload)
        #expect(full != nil, "the scan read a payload the decoder refuses: \(text)", sourceLocation: sourceLocation)
        if let full { #expect(scanned == full, "\(text)", sourceLocation: sourceLocation) }
    }

    @Test func aTypicalDeviceRequestIsReadInPlace() throws {
        let text = #"{"app_key":"replay","registration_id":"0a1b2c3d4e5f60718293","ts":1796108397,"nonce":"7ef8","seq":12,"tags":["a","b"],"x":{"y":[1,2.5,-0.25,true,false,null]}}"#
        let scanned = try #require(PayloadKeys.scan(Data(text.utf8)))
        #expect(scanned.appKey == "replay")
        #expect(scanned.registrationID == "0a1b2c3d4e5f60718293")
        #expect(scanned.ts == 1_796_108_397)
        #expect(scanned.seq == 12)
        #expect(scanned == decoded(Data(text.utf8)))
    }

    @Test func whatOnlyTheDecoderCanTellGoesToIt() {
        let fallbacks = [
            #"{"app_key":"a\u0062"}"#,             // \u escape
            #"{"app_\u006bey":"x"}"#,              // an escaped key could be one that is read
            #"{"app_key":"caf\#u{e9}"}"#,          // not ASCII
            #"{"ts":1.0}"#,                        // the decoder converts it
            #"{"ts":1e3}"#,                        // exponent
            #"{"seq":99999999999999999999}"#,      // does not fit
            #"{"app_key":5}"#,                     // wrong type: the decoder's error
            #"{"registration_id":["a"]}"#,         // the decoder notes a list
            #"{"euid":"a\"b"}"#,                   // escaped value of a key that is read
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
            #"{"a":"#.appending(String(repeating: "[", count: 70)).appending(String(repeating: "]", count: 70)).appending("}"),
        ]
        for text in fallbacks { #expect(PayloadKeys.scan(Data(text.utf8)) == nil, "\(text)") }
    }

    @Test func invalidDocumentsAreNeverReadInPlace() {
        let invalid = [
            "", " ", "{", "}", "[]", "\"x\"", "{}x", "{,}", #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":01}"#, #"{"a":-}"#,
            #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":[1,]}"#, #"{"a":{"b"}}"#,
            "{\"a\":\"\u{01}\"}", #"{"a":"\x"}"#, #"{"a":"unterminated}"#, #"{"a":1}{"#, #"{'a':1}"#, "{\"a\":1}\u{0B}",
        ]
        for text in invalid {
            #expect(PayloadKeys.scan(Data(text.utf8)) == nil, "\(text)")
            expectAgreement(text)
        }
        #expect(PayloadKeys.scan(Data(repeating: UInt8(ascii: " "), count: WireCodec.maxPayloadBytes + 1)) == nil)
    }

    @Test func duplicatesAndOtherTypesReadAsTheDecoderReadsThem() {
        for text in [
            #"{"app_key":"a","app_key":"b"}"#, #"{"seq":1,"seq":"x"}"#, #"{"seq":"x","seq":2}"#, #"{"euid":5}"#,
            #"{"device_id":null,"euid":[1]}"#, #"{"ts":null}"#, #"{"app_key":null}"#, #"{"seq":-0}"#, #"{"seq":2.5}"#,
            #"{"ts":-9223372036854775808}"#, #"{"ts":9223372036854775808}"#, #"{ "app_key" : "k" , "ts" : 7 }"#,
            "{\t\"a\"\r\n:\n1}", #"{"a":"\n\t\\\/\"","app_key":"k"}"#, #"{"registration_id":null,"euid":"e"}"#,
        ] {
            expectAgreement(text)
        }
        #expect(PayloadKeys.scan(Data(#"{"app_key":"a","app_key":"b"}"#.utf8))?.appKey == "a")
        #expect(PayloadKeys.scan(Data(#"{"seq":"x","seq":2}"#.utf8))?.seq == nil)
    }

    /// Random edits of real payloads (bytes replaced, dropped, doubled): whatever the scan reads, the
    /// decoder reads the same.
    @Test func mutatedPayloadsAgreeWithTheDecoder() {
        let seeds = [
            #"{"app_key":"replay","registration_id":"0a1b2c3d","ts":1796108397,"nonce":"7e\"f8","seq":12,"tags":["a","b"]}"#,
            #"{"euid":"u-1","device_id":"d","events":[{"name":"x","properties":{"k":[1,-2.5e3,{"z":null}]}}],"seq":-3}"#,
        ]
        let alphabet = Array(#"{}[]:,"\ 0123456789.-eE+tfnulrsa"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var generator = SchemaMalformedTests.SplitMix64(seed: 20)
        for _ in 0..<20_000 {
            var bytes = Array(seeds[Int(generator.next() % 2)].utf8)
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let at = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(bytes[at], at: at)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            let payload = Data(bytes)
            guard let scanned = PayloadKeys.scan(payload) else { continue }
            let full = decoded(payload)
            #expect(full == scanned, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}

extension PayloadKeys: Equatable {
    public static func == (a: PayloadKeys, b: PayloadKeys) -> Bool {
        a.appKey == b.appKey && a.registrationID == b.registrationID && a.registrationIDIsNotString == b.registrationIDIsNotString
            && a.ts == b.ts && a.euid == b.euid && a.deviceID == b.deviceID && a.seq == b.seq
    }
}
