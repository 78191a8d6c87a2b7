import Foundation
import JSON
import Testing

/// `JSONValue` is the codec's one tree: it keeps a number's text and an object's members as read, yet
/// must compare, read and write as the dictionary-and-Double value Foundation makes of the same text.
@Suite("JSON value")
struct JSONValueTests {
    func ours(_ text: String) throws -> JSONValue { try JSONTreeDecoder().decode(JSONValue.self, from: Data(text.utf8)) }
    func theirs(_ text: String) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

    func written(_ value: JSONValue) throws -> String { String(decoding: try JSONTreeEncoder().encode(value), as: UTF8.self) }
    func foundation(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func readsAndWritesAsFoundationDoes() throws {
        for text in [#"{"b":1,"a":2,"a":3}"#, "[1.0, 1e3, -0, 0.5, 12345678901234567890, 1e15, 9.5e15, -2.5e-7]",
                     #"{"z":{"y":[{"x":null,"w":true}],"v":"/"},"u":{}}"#, "[]", "\"s\"", "42"] {
            let (a, b) = (try ours(text), try theirs(text))
            #expect(a == b, "\(text)")
            #expect(a.hashValue == b.hashValue, "\(text)")
            #expect(try written(a) == foundation(b), "\(text)")
        }
    }

    @Test func aWholeNumberIsExactThroughTheTree() throws {
        struct Sequence: Codable, Equatable { var seq: Int64; var max: UInt64 }
        let data = Data(#"{"seq":9007199254740993,"max":18446744073709551615}"#.utf8)
        let value = try JSONTreeDecoder().decode(Sequence.self, from: data)
        #expect(value == Sequence(seq: 9_007_199_254_740_993, max: .max))
        #expect(value == (try JSONDecoder().decode(Sequence.self, from: data)))
    }

    @Test func numbersAreEqualByValue() throws {
        #expect(try ours("1.0") == .number(1))
        #expect(try ours("1e2") == .number(100))
        #expect(try ours("1.0").hashValue == JSONValue.number(1).hashValue)
        #expect(try ours("[0.5]") != .array([.number(0.25)]))
    }

    @Test func settingAKeyReplacesEveryValueOfIt() throws {
        guard case .object(var object) = try ours(#"{"a":1,"b":2,"a":3}"#) else { Issue.record("not an object"); return }
        #expect(object["a"] == .number(1))
        #expect(object.count == 2)
        object["a"] = .string("x")
        #expect(object.dictionary == ["a": .string("x"), "b": .number(2)])
        object["a"] = nil
        #expect(object.dictionary == ["b": .number(2)])
        #expect(try written(.object(object)) == #"{"b":2}"#)
    }

    @Test func aNumberThatIsNotFiniteIsNotWritten() {
        #expect(throws: EncodingError.self) { try JSONTreeEncoder().encode(JSONValue.number(.infinity)) }
        #expect(throws: EncodingError.self) { try JSONTreeEncoder().encode(["x": JSONValue.number(.nan)]) }
        #expect(JSONValue.number(.nan).number?.isNaN == true)
    }
}
