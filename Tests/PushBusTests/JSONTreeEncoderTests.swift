import Foundation
import JSON
import Schema
import Testing

/// The wire encoder must write exactly what Foundation's JSONEncoder writes (sorted keys, slashes
/// unescaped), so replies, events and recordings stay byte-for-byte what they were.
@Suite("JSON tree encoder")
struct JSONTreeEncoderTests {
    func foundation<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func tree<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONTreeEncoder().encode(value), as: UTF8.self)
    }

    func same<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try tree(value) == foundation(value), sourceLocation: sourceLocation)
    }

    @Test func scalarsAndStrings() throws {
        try same(["a": JSONValue.string("quote \" backslash \\ slash / tab \t newline \n bell \u{07} nul \u{0} 中文 😀 \u{2028}")])
        try same([0.1, 1e-7, 1e21, 123456.789, -0.5, 5e-324, 1.7976931348623157e308, 0, -3, 2.5e15, 9.9e14])
        try same([Int.min, Int.max, 0, -1])
        try same([UInt64.max])
        try same([true, false])
        try same(["b": 1, "a": 2, "B": 3, "_": 4, "aa": 5, "a1": 6, "é": 7, "Z": 8, "10": 9, "9": 10])
        try same([String?.none, "x"])
        // Every ASCII character, alone, in a run and at either end, escaped or copied as Foundation does.
        let ascii = String(decoding: Array(UInt8(0)...UInt8(0x7F)), as: UTF8.self)
        try same([ascii, String(ascii.reversed()), "\"", "\\", "\u{1F}x", "x\u{7F}", "é\"é", ""] + ascii.map { String($0) })
        try same("top-level string")
    }

    /// Random strings of the characters a writer can get wrong, against Foundation's (the seed is
    /// printed; `PUSHBUS_TEST_SEED` replays it).
    @Test func randomStringsAreWrittenAsFoundationWritesThem() throws {
        let pool: [Unicode.Scalar] = (0...0x7F).compactMap(Unicode.Scalar.init)
            + ["é", "ß", "中", "😀", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{10FFFF}"]
        var generator = TestRandom()
        var strings: [String] = []
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...24, using: &generator)
            var text = String.UnicodeScalarView()
            for _ in 0..<length { text.append(pool.randomElement(using: &generator)!) }
            strings.append(String(text))
        }
        try same(strings, sourceLocation: #_sourceLocation)
        try same(Dictionary(strings.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a }))
    }

    @Test func schemaValues() throws {
        try same(Reply(DeviceInfo(device: Device(registrationID: "r1", appKey: "a", platform: "ios", apnsToken: "ab",
                                                  liveActivityStartTokens: ["Z": "1", "A": "2"], createdAt: "t", updatedAt: "u")), seq: 7))
        try same(Reply<Empty>(error: CommandError(.tagCharset, "tag \"x y\" is bad"), seq: nil))
        try same(Envelope(DeviceUpdate(appKey: "a", registrationID: "r", voipToken: .null, language: "th"), seq: 1))
        try same(Envelope(DeviceUpdate(appKey: "a", registrationID: "r", voipToken: .absent), seq: nil))
        try same(TagsReply(tags: nil))
        try same(AudiencePage(registrationIDs: ["a", "b"], nextCursor: nil, total: 2))
        try same(Event(publisher: "tagging/1", sequence: 42, time: "2026-11-29T10:00:00.000Z",
                       body: TagsChangedEvent(appKey: "a", registrationID: "r", added: ["标签"], removed: [])))
        try same(RecordedCall(t: 12.5, command: "tags.add", payload: .object(["tags": .array([.string("x")]), "n": .number(1.25)]),
                              reply: .object(["code": .number(0)])))
        try same(JSONValue.object(["nested": .object(["deep": .array([.null, .bool(true), .number(-0.001), .object([:])])])]))
    }

    @Test func emptyAndNested() throws {
        try same(Empty())
        try same([[Int]]())
        try same([[1, 2], [], [3]])
        try same(["x": [String: Int]()])
        // Lists of strings take a path of their own.
        try same(["t", "é", "", "a\"b/c"])
        try same([[String]()])
        try same([["a", "b"], []])
        try same(["k": ["v"], "e": [String]()])
    }

    /// `text` writes a tree as `encode` does, without the Encoder: for parsed trees (numbers in any
    /// form, keys out of order or given twice, escapes) and for built ones.
    @Test func textIsWhatEncodeWrites() throws {
        let documents = [
            #"{"b":1,"a":2,"B":3,"_":4,"aa":5,"a1":6,"é":7,"Z":8,"10":9,"9":10}"#,
            #"{"a":1,"a":2,"c":{"y":1,"x":2,"y":3},"b":[{"k":1,"j":2},{"k":3,"k":4}]}"#,
            #"[1,1.0,1.50,-0,-0.0,0.1,1e2,1E+2,-1.5e-7,123456789012345,1234567890123456,9007199254740993,99999999999999999999,1e308,5e-324]"#,
            #"[0.001,0.0001,0.00001,12.34,100.0,2.5e15,9.9e14,8999999999999999,9000000000000001,1e15,1e16,-123.4560]"#,
            #"["quote \" backslash \\ slash \/ \u00e9 \ud83d\ude00 \u0001 \t\n\r\b\f \u2028", "é中文😀", ""]"#,
            #"{"":null,"t":true,"f":false,"e":{},"l":[]}"#,
            #"{"e\u0301":1,"\u00e9":2,"o":{"e\u0301":3,"f":4,"\u00e9":5},"a":[{"\u00e9":6,"e\u0301":7}]}"#,
            #"{"x":{"e\u0301":1,"\u00e9":2},"y":[{"e\u0301":3,"\u00e9":4}]}"#,
            "[" + String(repeating: "[{\"z\":1,\"a\":[", count: 60) + String(repeating: "]}]", count: 60) + "]",
        ]
        for document in documents {
            let parsed = try JSONTreeDecoder().decode(JSONValue.self, from: Data(document.utf8))
            #expect(try JSONTreeEncoder().text(parsed) == tree(parsed), "\(document)")
        }
        let built = JSONValue.object(["n": .number(2.5), "w": .number(3), "big": .number(1e300), "s": .string("x/y"),
                                      "a": .array([.object(["b": .null, "a": .bool(true)])])])
        #expect(try JSONTreeEncoder().text(built) == tree(built))
        #expect(throws: EncodingError.self) { try JSONTreeEncoder().text(.number(.nan)) }
    }

    /// Numbers written in plain decimals take a shortcut in `text`; 200,000 of them, of every length and
    /// sign and with zeros leading and trailing, come out as `encode` writes them.
    @Test func decimalsAreWrittenByTheirValue() throws {
        var random = SchemaMalformedTests.SplitMix64(seed: 20)
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(random.next() % 10)) }) }
        for _ in 0..<200 {
            let numbers = (0..<1000).map { _ in
                let whole = random.next() % 4 == 0 ? "0" : String(1 + random.next() % 9) + digits(Int(random.next() % 17))
                let zeros = String(repeating: "0", count: Int(random.next() % 5))
                let fraction = zeros + digits(Int(random.next() % 18)) + String(repeating: "0", count: Int(random.next() % 3))
                let sign = random.next() % 3 == 0 ? "-" : ""
                return sign + whole + "." + (fraction.isEmpty ? "0" : fraction)
            }
            let parsed = try JSONTreeDecoder().decode(JSONValue.self, from: Data("[\(numbers.joined(separator: ","))]".utf8))
            #expect(try JSONTreeEncoder().text(parsed) == tree(parsed))
        }
    }

    @Test func nonFiniteNumbersThrow() {
        #expect(throws: EncodingError.self) { try JSONTreeEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONTreeEncoder().encode(["x": Double.infinity]) }
    }
}
