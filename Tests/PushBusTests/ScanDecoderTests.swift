import Foundation
@testable import JSON
import Schema
import Testing

/// `ScanDecoder` reads plain requests in place. Wherever it reads, it must give what the tree decoder
/// gives and fail where that fails with the same kind of error, so a type that catches one decodes the
/// same; every other document must go to the tree.
@Suite("Scan decoder")
struct ScanDecoderTests {
    /// Both decoders give the same value, or fail with the same kind of error at the same place.
    func same<T: Decodable & Equatable>(_ type: T.Type, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let ours = DecodedBothWays.inPlace(type, text) else {
            Issue.record("not read in place: \(text)", sourceLocation: sourceLocation)
            return
        }
        switch (ours, DecodedBothWays.fromTree(type, text)) {
        case (.success(let a), .success(let b)): #expect(a == b, "\(text)", sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)): #expect(Probe.kind(a) == Probe.kind(b), "\(text): \(a) vs \(b)", sourceLocation: sourceLocation)
        case (let a, let b): Issue.record("\(text): in place \(a), tree \(b)", sourceLocation: sourceLocation)
        }
    }

    @Test func plainRequestsAreReadInPlace() throws {
        let text = #"{"app_key":"a1","registration_id":"r-1","tags":["x","y"],"seq":3,"ts":1700000000,"nonce":"00ff"}"#
        let envelope = try #require(try DecodedBothWays.inPlace(Envelope<TagsChange>.self, text)?.get())
        #expect(envelope.seq == 3)
        #expect(envelope.payload.tags == ["x", "y"])
        #expect(envelope.payload.registrationID == "r-1")
        #expect(try JSONTreeDecoder().decode(Envelope<TagsChange>.self, from: Data(text.utf8)) == envelope)
    }

    @Test func documentsOutsideThePlainSubsetGoToTheTree() throws {
        let outside = [
            #"{"tags":["\u00e9"]}"#, #"{"tags":["a\nb"]}"#, #"{"t\"ag":1}"#, #"{"tags":["标签"]}"#, #"{"n":1e3}"#,
            #"["a"]"#, #""a""#, "{", #"{"a":1,}"#, #"{"a":1} x"#, #"{"a":01}"#, "",
            String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
            "{\"a\":" + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
        ]
        for text in outside {
            #expect(DecodedBothWays.inPlace(JSONValue.self, text) == nil, "\(text)")
        }
        // The wire decoder still reads them, as the tree does.
        let change = try JSONTreeDecoder().decode(TagsChange.self, from: Data(#"{"app_key":"a","tags":["\u00e9","标签"]}"#.utf8))
        #expect(change.tags == ["é", "标签"])
    }

    @Test func schemaPayloadsDecodeAsFromTheTree() {
        same(Envelope<TagsChange>.self, #"{"app_key":"a","registration_id":"r","tags":["x"],"seq":3}"#)
        same(TagsChange.self, #"{"app_key":"a","tags":"x"}"#)
        same(TagsChange.self, #"{"app_key":"a","tags":[1]}"#)
        same(TagsChange.self, #"{"app_key":"a","tags":["x",null]}"#)
        same(TagsChange.self, #"{"app_key":"a","tags":null}"#)
        same(DeviceRef.self, #"{"app_key":null}"#)
        same(DeviceRef.self, #"{"app_key":"a","app_key":"b"}"#)
        same(Envelope<DeviceRef>.self, #"{"app_key":"a","seq":"x"}"#)
        same(Envelope<DeviceRef>.self, #"{"app_key":"a","seq":7.0}"#)
        same(Envelope<DeviceRef>.self, #"{"app_key":"a","seq":7.5}"#)
        same(Envelope<DeviceRef>.self, #"{"app_key":"a","seq":-9223372036854775808}"#)
        same(Envelope<DeviceRef>.self, #"{"app_key":"a","seq":9223372036854775808}"#)
        same(DeviceUpdate.self, #"{"app_key":"a","registration_id":"r","voip_token":null}"#)
        same(BadgeSet.self, #"{"app_key":"a","registration_id":"r","value":3.0}"#)
        same(BadgeSet.self, #"{"app_key":"a","registration_id":"r","value":-0}"#)
        same(BadgeSet.self, #"{"app_key":"a","registration_id":"r","value":99999999999999999999}"#)
        same(Reply<AudiencePage>.self, #"{"code":0,"registration_ids":["a"],"next_cursor":null,"total":1,"seq":2}"#)
        same(Reply<AudiencePage>.self, #"{"code":6005,"message":"bad"}"#)
        same([String: Int].self, #"{"a":1,"a":2}"#)
        same([String: JSONValue].self, #"{"a":[1,2.5,true,null,{"b":"c"}],"d":{}}"#)
    }

    /// Random documents over a few keys and every kind of value, each key read as every type a
    /// request has (`Probe` notes each result or error): the same notes in place as from the tree.
    @Test func randomDocumentsReadTheSameInPlaceAsFromTheTree() throws {
        var random = SystemRandomNumberGenerator()
        var readInPlace = 0
        for _ in 0..<1500 {
            let text = Self.randomObject(depth: 0, using: &random)
            guard let ours = DecodedBothWays.inPlace(Probe.self, text) else { continue }
            readInPlace += 1
            let theirs = DecodedBothWays.fromTree(Probe.self, text)
            switch (ours, theirs) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(text)")
            case (.failure(let a), .failure(let b)): #expect(Probe.kind(a) == Probe.kind(b), "\(text)")
            case (let a, let b): Issue.record("\(text): in place \(a), tree \(b)")
            }
        }
        #expect(readInPlace > 1000)
    }

    static let keys = ["a", "b", "seq", "tags", "n", ""]
    static let scalars = [#""x""#, #""""#, #""registration-id-0123456789""#, "0", "-0", "7", "-7", "3.0", "3.5", "-0.0",
                          "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
                          "2147483648", "true", "false", "null"]

    static func randomObject(depth: Int, using random: inout SystemRandomNumberGenerator) -> String {
        let members = (0..<Int.random(in: 0...5, using: &random)).map { _ in
            "\"\(keys.randomElement(using: &random)!)\":\(randomValue(depth: depth + 1, using: &random))"
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func randomValue(depth: Int, using random: inout SystemRandomNumberGenerator) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0 where depth < 3: return randomObject(depth: depth, using: &random)
        case 1, 2 where depth < 3:
            let items = (0..<Int.random(in: 0...3, using: &random)).map { _ in randomValue(depth: depth + 1, using: &random) }
            return "[" + items.joined(separator: ",") + "]"
        default: return scalars.randomElement(using: &random)!
        }
    }
}

/// Reads each key of `ScanDecoderTests.keys` as each type a request holds, noting the value or the
/// kind of error; an object read the same way, an array item by item.
private struct Probe: Decodable, Equatable {
    var notes: [String] = []

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        notes.append("keys \(container.allKeys.map(\.stringValue))")
        for name in ScanDecoderTests.keys {
            let key = Key(stringValue: name)
            notes.append("\(name) contains \(container.contains(key)) nil \(Self.note { try container.decodeNil(forKey: key) })")
            notes.append(Self.note { try container.decode(String.self, forKey: key) })
            notes.append(Self.note { try container.decode(Int.self, forKey: key) })
            notes.append(Self.note { try container.decode(Int32.self, forKey: key) })
            notes.append(Self.note { try container.decode(UInt64.self, forKey: key) })
            notes.append(Self.note { try container.decode(Float.self, forKey: key) })
            notes.append(Self.note { try container.decode(Double.self, forKey: key) })
            notes.append(Self.note { try container.decode(Bool.self, forKey: key) })
            notes.append(Self.note { try container.decode(Int64.self, forKey: key) })
            notes.append(Self.note { try container.decodeIfPresent(Int.self, forKey: key) })
            notes.append(Self.note { try container.decodeIfPresent(Int64.self, forKey: key) })
            notes.append(Self.note { try container.decodeIfPresent(String.self, forKey: key) })
            notes.append(Self.note { try container.decodeIfPresent(Bool.self, forKey: key) })
            notes.append(Self.note { try container.decodeIfPresent(Double.self, forKey: key) })
            notes.append(Self.note { try container.decodeIfPresent([String].self, forKey: key) })
            notes.append(Self.note { try container.decode([String].self, forKey: key) })
            notes.append(Self.note { try container.decode([Int?].self, forKey: key) })
            notes.append(Self.note { try container.decode(JSONValue.self, forKey: key) })
            notes.append(Self.note { try container.decode(ResultCode.self, forKey: key) })
            notes.append(Self.note { try container.decode(Probe.self, forKey: key).notes })
            notes.append(Self.note { () -> [String] in
                var items = try container.nestedUnkeyedContainer(forKey: key)
                var read: [String] = []
                while !items.isAtEnd {
                    read.append(Self.note { try items.decodeNil() })
                    read.append(Self.note { try items.decode(String.self) })
                    read.append(Self.note { try items.decode(Int.self) })
                    if (try? items.decode(JSONValue.self)) == nil { break }
                }
                return read
            })
        }
    }

    static func note<T>(_ read: () throws -> T) -> String {
        do { return "\(try read())" } catch { return kind(error) }
    }

    static func kind(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: "missing \(key.stringValue) at \(context.codingPath.map(\.stringValue))"
        case .valueNotFound(_, let context)?: "null at \(context.codingPath.map(\.stringValue))"
        case .typeMismatch(_, let context)?: "type at \(context.codingPath.map(\.stringValue))"
        case .dataCorrupted(let context)?: "corrupted at \(context.codingPath.map(\.stringValue))"
        default: "other \(error)"
        }
    }
}
