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
        try same("top-level string")
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
    }

    @Test func nonFiniteNumbersThrow() {
        #expect(throws: EncodingError.self) { try JSONTreeEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONTreeEncoder().encode(["x": Double.infinity]) }
    }
}
