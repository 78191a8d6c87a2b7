import Foundation
import JSON
import Schema
import Testing

/// The wire decoder must read what Foundation's JSONDecoder reads, and fail where it fails with
/// the same kind of error, so replies keep their codes (6001 missing, 6017 wrong).
@Suite("JSON tree decoder")
struct JSONTreeDecoderTests {
    func both<T: Decodable & Equatable>(_ type: T.Type, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let data = Data(text.utf8)
        let ours = Result { try JSONTreeDecoder().decode(type, from: data) }
        let theirs = Result { try JSONDecoder().decode(type, from: data) }
        switch (ours, theirs) {
        case (.success(let a), .success(let b)): #expect(a == b, sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)): #expect(kind(a) == kind(b), "\(a) vs \(b)", sourceLocation: sourceLocation)
        default: Issue.record("\(text): ours \(ours), Foundation \(theirs)", sourceLocation: sourceLocation)
        }
    }

    func kind(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: "missing \(key.stringValue) at \(context.codingPath.map(\.stringValue))"
        case .valueNotFound(_, let context)?: "null at \(context.codingPath.map(\.stringValue))"
        case .typeMismatch(_, let context)?: "type at \(context.codingPath.map(\.stringValue))"
        case .dataCorrupted?: "corrupted"
        default: "other"
        }
    }

    @Test func schemaPayloads() {
        both(TagsChange.self, #"{"app_key":"a","registration_id":"r","tags":["x","标签"],"seq":3}"#)
        both(TagsChange.self, #"{"app_key":"a","tags":"x"}"#)
        both(TagsChange.self, #"{"app_key":"a","tags":[1]}"#)
        both(DeviceRef.self, #"{"app_key":null}"#)
        both(Envelope<DeviceRef>.self, #"{"app_key":"a","seq":"x"}"#)
        both(Envelope<DeviceRef>.self, #"{"app_key":"a","seq":7}"#)
        both(DeviceUpdate.self, #"{"app_key":"a","registration_id":"r","voip_token":null}"#)
        both(DeviceUpdate.self, #"{"app_key":"a","registration_id":"r"}"#)
        both(BadgeSet.self, #"{"app_key":"a","registration_id":"r","value":3.0}"#)
        both(BadgeSet.self, #"{"app_key":"a","registration_id":"r","value":3.5}"#)
        both(BadgeSet.self, #"{"app_key":"a","registration_id":"r","value":1e3}"#)
        both(BadgeSet.self, #"{"app_key":"a","registration_id":"r","value":99999999999999999999}"#)
        both(Reply<AudiencePage>.self, #"{"code":0,"registration_ids":["a"],"next_cursor":null,"total":1,"seq":2}"#)
        both(Reply<AudiencePage>.self, #"{"code":6005,"message":"bad"}"#)
        both(JSONValue.self, #"{"a":[1,2.5,-3e2,true,false,null,{"b":"\u00e9\ud83d\ude00\n\"\\\/"}],"c":{}}"#)
        both([String: Int].self, #"{"a":1,"a":2}"#)
        both([Int].self, "[]")
        // Lists of strings are read in one pass (TreeDecoder.strings): the same values and errors.
        for text in [#"["a","b"]"#, "[]", #"["a",null]"#, #"["a",1]"#, #""x""#, "null", #"{"a":"b"}"#] { both([String].self, text) }
        both(TagsChange.self, #"{"app_key":"a","tags":null}"#)
        both(TagsChange.self, #"{"app_key":"a","tags":["x",null]}"#)
        both(Int.self, "-0")
    }

    @Test func malformedDocumentsThrow() {
        for text in ["", " ", "{", "{\"a\"", "{\"a\":}", "[1,]", "{\"a\":1,}", "[01]", "[1.]", "[.5]", "[+1]", "[1e]",
                     "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\u{01}b\"", "[1] [2]", "nul", "tru",
                     "{\"a\" 1}", "[1 2]", "{1:2}"] {
            #expect(throws: DecodingError.self, "\(text)") { try JSONTreeDecoder().decode(JSONValue.self, from: Data(text.utf8)) }
        }
        #expect(throws: DecodingError.self) { try JSONTreeDecoder().decode(JSONValue.self, from: Data([0x22, 0xFF, 0xFE, 0x22])) }
    }

    /// Strings of raw UTF-8 (no escapes) are checked as Foundation checks them: ASCII, valid multi-byte
    /// sequences, and the invalid ones (a stray continuation byte, overlong forms, surrogates, beyond
    /// U+10FFFF, cut short).
    @Test func rawUTF8IsValidated() {
        let strings: [[UInt8]] = [
            Array("plain ascii".utf8), Array("é中文😀".utf8), [0x61, 0xC3, 0xA9, 0x62],
            [0x80], [0x61, 0xBF], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xFF], [0x61, 0xFE, 0x62],
        ]
        for bytes in strings {
            for document in [[0x22] + bytes + [0x22], Array(#"{"k":""#.utf8) + bytes + Array(#""}"#.utf8),
                             Array(#"{""#.utf8) + bytes + Array(#"":1}"#.utf8)] {
                let ours = try? JSONTreeDecoder().decode(JSONValue.self, from: Data(document))
                let theirs = try? JSONDecoder().decode(JSONValue.self, from: Data(document))
                #expect(ours == theirs, "\(bytes)")
                #expect((ours == nil) == (String(validating: bytes, as: UTF8.self) == nil), "\(bytes)")
            }
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: DecodingError.self) { try JSONTreeDecoder().decode(JSONValue.self, from: Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect((try? JSONTreeDecoder().decode(JSONValue.self, from: Data(fine.utf8))) != nil)
    }

    @Test func escapesDecode() throws {
        let value = try JSONTreeDecoder().decode(String.self, from: Data(#""tab\tq\"\u0041\ud83d\ude00""#.utf8))
        #expect(value == "tab\tq\"A😀")
    }
}
