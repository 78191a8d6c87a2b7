import Foundation
@testable import JSON
import Schema
import Testing

/// Tries to make `ScanDecoder` (the in-place reading `JSONTreeDecoder.decode` tries first) give
/// something other than the tree decoder: a different value, an error of another kind or place, or a
/// different branch in a type that catches errors.
@Suite("Scan decoder, adversarial")
struct ScanDecoderAdversarialTests {
    // MARK: Helpers

    func wire<T: Decodable>(_ type: T.Type, _ text: String) -> Result<T, any Error> {
        Result { try JSONTreeDecoder().decode(type, from: Data(text.utf8)) }
    }

    /// The kind of a decoding error and where it is, with an index as its number.
    static func kind(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }.joined(separator: ".")
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "missing \(key.stringValue) at \(path(context.codingPath))"
        case .valueNotFound(let type, let context)?: return "null \(type) at \(path(context.codingPath))"
        case .typeMismatch(let type, let context)?: return "type \(type) at \(path(context.codingPath))"
        case .dataCorrupted(let context)?: return "corrupted at \(path(context.codingPath))"
        default: return "other \(error)"
        }
    }

    /// `decode` gives what `decodeFromTree` gives; when `inPlace`, the document is read in place and
    /// that reading alone agrees with the tree too (value, or kind and place of the error).
    func same<T: Decodable & Equatable>(_ type: T.Type, _ text: String, inPlace: Bool = true,
                                        sourceLocation: SourceLocation = #_sourceLocation) {
        let reference = DecodedBothWays.fromTree(type, text)
        compare(wire(type, text), reference, "decode \(T.self) \(text)", sourceLocation)
        let ours = DecodedBothWays.inPlace(type, text)
        if inPlace {
            guard let ours else {
                Issue.record("not read in place: \(text)", sourceLocation: sourceLocation)
                return
            }
            compare(ours, reference, "scan \(T.self) \(text)", sourceLocation)
        } else if let ours {
            compare(ours, reference, "scan \(T.self) \(text)", sourceLocation)
        }
    }

    func compare<T: Equatable>(_ ours: Result<T, any Error>, _ theirs: Result<T, any Error>, _ label: String,
                               _ sourceLocation: SourceLocation) {
        switch (ours, theirs) {
        case (.success(let a), .success(let b)): #expect(a == b, "\(label): \(a) vs \(b)", sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(Self.kind(a) == Self.kind(b), "\(label): \(a) vs \(b)", sourceLocation: sourceLocation)
        case (let a, let b): Issue.record("\(label): in place \(a), tree \(b)", sourceLocation: sourceLocation)
        }
    }

    /// Values for a field `v`, over the edges of every scalar type.
    static let values: [String] = [
        #""""#, #""x""#, #""true""#, #""1""#, #""null""#, #""{}""#, #"" ""#, "\"~\u{7f}\"",
        "0", "-0", "0.0", "-0.0", "1.0", "1.5", "1.50", "7", "-7", "0.1", "1.000000000000000000001",
        "127", "128", "-129", "255", "256",
        "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
        "9007199254740993", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "9223372036854775807.0", "9223372036854775806.5", "-9223372036854775808.0",
        "18446744073709551615", "18446744073709551616", "-18446744073709551615", "18446744073709551615.0",
        "-1", "-1.0", "-0.5", "1e3", "3.4028236e38", "340282366920938463463374607431768211456",
        String(repeating: "9", count: 300), "-" + String(repeating: "9", count: 299), "0." + String(repeating: "0", count: 297) + "1",
        String(repeating: "1", count: 20) + "." + String(repeating: "0", count: 279),
        "true", "false", "null", "[]", "{}", "[[]]", "[{}]", #"["a"]"#, #"["a",null]"#, #"[null]"#, "[1,2]", "[1,null,3]", "[1.0,-0]",
        #"[1,"a",true,null,{},[]]"#, #"[["a"],["b",1]]"#, #"{"v":1}"#, #"{"a":1,"a":"b"}"#, #"{"":null}"#, #"{"super":[1]}"#,
        #"{"1":1,"2":2}"#, #"{"-1":"x","01":2}"#, "[ 1 , 2 ]", "{ }", "[ ]",
    ]

    // MARK: Every field type over every value

    @Test func everyScalarTypeOverEveryValue() {
        for value in Self.values {
            for text in ["{\"v\":\(value)}", " \t\r\n{ \"v\" \n:\t\(value) \r}\n ", "{\"w\":1,\"v\":\(value),\"v\":0}", "{}"] {
                let inPlace = !value.contains("e3")
                same(One<String>.self, text, inPlace: inPlace)
                same(One<Int>.self, text, inPlace: inPlace)
                same(One<Int32>.self, text, inPlace: inPlace)
                same(One<Int64>.self, text, inPlace: inPlace)
                same(One<UInt>.self, text, inPlace: inPlace)
                same(One<UInt64>.self, text, inPlace: inPlace)
                same(One<Double>.self, text, inPlace: inPlace)
                same(One<Float>.self, text, inPlace: inPlace)
                same(One<Bool>.self, text, inPlace: inPlace)
                same(One<JSONValue>.self, text, inPlace: inPlace)
                same(One<[String]>.self, text, inPlace: inPlace)
                same(One<[Int]>.self, text, inPlace: inPlace)
                same(One<[Int?]>.self, text, inPlace: inPlace)
                same(One<[String?]>.self, text, inPlace: inPlace)
                same(One<[[Int]]>.self, text, inPlace: inPlace)
                same(One<[[String]]>.self, text, inPlace: inPlace)
                same(One<[String: Int]>.self, text, inPlace: inPlace)
                same(One<[String: String]>.self, text, inPlace: inPlace)
                same(One<[Int: String]>.self, text, inPlace: inPlace)
                same(One<[String: JSONValue]>.self, text, inPlace: inPlace)
                same(One<[JSONValue]>.self, text, inPlace: inPlace)
                same(One<Word>.self, text, inPlace: inPlace)
                same(One<Count>.self, text, inPlace: inPlace)
                same(One<ResultCode>.self, text, inPlace: inPlace)
                same(One<Patch<Int>>.self, text, inPlace: inPlace)
                same(One<Int?>.self, text, inPlace: inPlace)
                same(One<Int??>.self, text, inPlace: inPlace)
                same(One<Small>.self, text, inPlace: inPlace)
                same(One<Wrapped>.self, text, inPlace: inPlace)
                same(One<Date>.self, text, inPlace: inPlace)
                same(One<URL>.self, text, inPlace: inPlace)
                same(Present<String>.self, text, inPlace: inPlace)
                same(Present<Int>.self, text, inPlace: inPlace)
                same(Present<Int32>.self, text, inPlace: inPlace)
                same(Present<Int64>.self, text, inPlace: inPlace)
                same(Present<UInt64>.self, text, inPlace: inPlace)
                same(Present<Double>.self, text, inPlace: inPlace)
                same(Present<Float>.self, text, inPlace: inPlace)
                same(Present<Bool>.self, text, inPlace: inPlace)
                same(Present<JSONValue>.self, text, inPlace: inPlace)
                same(Present<[String]>.self, text, inPlace: inPlace)
                same(Present<Word>.self, text, inPlace: inPlace)
                same(Present<Small>.self, text, inPlace: inPlace)
                same(Guess.self, text, inPlace: inPlace)
                same(Recorder.self, text, inPlace: inPlace)
            }
        }
    }

    /// Arrays of every value, read item by item as a recorder reads them, and as lists of each type.
    @Test func arraysOfEveryValue() {
        let plain = Self.values.filter { !$0.contains("e3") }
        for (first, second) in zip(plain, plain.reversed()) {
            let text = "{\"v\":[\(first), \(second)],\"w\":[[\(first)],[],{\"v\":\(second)}]}"
            same(Recorder.self, text)
            same(One<[String]>.self, text)
            same(One<[Int?]>.self, text)
            same(One<[Double]>.self, text)
            same(One<[Bool?]>.self, text)
            same(One<[JSONValue]>.self, text)
            same(One<[Guess]>.self, text)
        }
    }

    // MARK: Keys

    @Test func keysThatArePrefixesEmptyDuplicatedOrSuper() {
        let documents = [
            #"{"v":1,"vv":2,"":3}"#, #"{"vv":2,"v":1}"#, #"{"":1}"#, #"{"":1,"":2}"#, #"{"v":1,"v":"x"}"#, #"{"v":"x","v":1}"#,
            #"{"v":null,"v":1}"#, #"{"super":{"v":5},"v":1}"#, #"{"super":null}"#, #"{"super":7}"#, #"{"supe":1,"superr":2}"#,
            #"{"w":{},"v":[],"":""}"#, #"{"V":1}"#, #"{"v ":1}"#, #"{" v":1}"#, "{\"\":\"\"}", "{\"a\":\"\",\"\":\"\"}", "{}", " {} ",
            #"{"v":{"v":{"v":{"v":1}}}}"#,
        ]
        for text in documents {
            same(One<Int>.self, text)
            same(One<String>.self, text)
            same(Present<Int>.self, text)
            same(EmptyKey.self, text)
            same(Recorder.self, text)
            same(SuperReader.self, text)
            same([String: JSONValue].self, text)
            same([String: Int].self, text)
            same([String: Int?].self, text)
            same([String: String].self, text)
            same(JSONValueBox.self, text)
            same(Guess.self, text)
        }
    }

    // MARK: White space and nesting

    @Test func whiteSpaceAroundEverything() {
        let text = " \r\n\t{ \"a\" : [ 1 , { \"b\" : null } , \"c\" ] , \"v\" : 1.50 , \"w\":\t\"\" } \n\r\t"
        same(Recorder.self, text)
        same([String: JSONValue].self, text)
        same(One<Double>.self, text)
        same(Present<JSONValue>.self, text)
        // White space the parser does not allow (a form feed, a NUL) is not read in place.
        for bad in ["\u{0C}{\"v\":1}", "{\"v\":1}\u{0C}", "{\"v\":1}\u{0}", "\u{0}{\"v\":1}", "{\"v\":\u{0C}1}", "\u{FEFF}{\"v\":1}"] {
            same(One<Int>.self, bad, inPlace: false)
            #expect(DecodedBothWays.inPlace(One<Int>.self, bad) == nil)
        }
    }

    @Test func nestingAtTheScannersLimit() {
        for depth in [61, 62, 63, 64, 65, 66, 100] {
            let arrays = "{\"v\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            let objects = "{\"v\":" + String(repeating: "{\"v\":", count: depth) + "1" + String(repeating: "}", count: depth) + "}"
            let mixed = "{\"v\":" + String(repeating: "[{\"v\":", count: depth / 2) + "null" + String(repeating: "}]", count: depth / 2) + "}"
            for text in [arrays, objects, mixed] {
                same(Nest.self, text, inPlace: false)
                same(One<JSONValue>.self, text, inPlace: false)
                same([String: JSONValue].self, text, inPlace: false)
            }
        }
        // 64 levels below the top object is the deepest read in place, 65 is not.
        let deepest = "{\"v\":" + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"
        let deeper = "{\"v\":" + String(repeating: "[", count: 65) + String(repeating: "]", count: 65) + "}"
        #expect(DecodedBothWays.inPlace(JSONValueBox.self, deepest) != nil)
        #expect(DecodedBothWays.inPlace(JSONValueBox.self, deeper) == nil)
    }

    // MARK: Numbers kept as text

    @Test func userTreesKeepTheirNumbersText() throws {
        let text = #"{"v":{"a":1.50,"b":-0,"c":0.0,"d":9223372036854775808,"e":[1.10,{"f":100.000}]},"w":-0.0}"#
        let ours = try #require(try DecodedBothWays.inPlace([String: JSONValue].self, text)?.get())
        let theirs = try DecodedBothWays.fromTree([String: JSONValue].self, text).get()
        #expect(Self.numberTexts(.object(ours)) == Self.numberTexts(.object(theirs)))
        #expect(Self.numberTexts(.object(ours)) == ["1.50", "-0", "0.0", "9223372036854775808", "1.10", "100.000", "-0.0"].sorted())
        let user = try #require(try DecodedBothWays.inPlace(Present<JSONValue>.self, text)?.get())
        #expect(Self.numberTexts(user.v ?? .null) == Self.numberTexts(try DecodedBothWays.fromTree(Present<JSONValue>.self, text).get().v ?? .null))
    }

    static func numberTexts(_ value: JSONValue) -> [String] {
        switch value {
        case .number(let number): [number.text]
        case .array(let items): items.flatMap(numberTexts).sorted()
        case .object(let object): object.members.flatMap { numberTexts($0.value) }.sorted()
        default: []
        }
    }

    // MARK: Schema types and the wire

    static let schemaDocuments: [String] = [
        #"{"app_key":"a","registration_id":"r","tags":["x","y"],"seq":3}"#,
        #"{"app_key":"a","registration_id":"r","tags":[],"seq":-0}"#,
        #"{"app_key":"a","registration_id":"r","tags":[""],"seq":1.0}"#,
        #"{"app_key":"a","registration_id":"r","tags":["x"],"seq":9223372036854775807}"#,
        #"{"app_key":"a","registration_id":"r","tags":["x"],"seq":9223372036854775808}"#,
        #"{"app_key":"a","registration_id":"r","tags":["x"],"seq":null}"#,
        #"{"app_key":"a","registration_id":"r","tags":["x"],"seq":true}"#,
        #"{"app_key":"a","registration_id":"r","tags":["x"],"seq":"3"}"#,
        #"{"app_key":"","registration_id":"","tags":null}"#,
        #"{"app_key":1}"#, #"{"app_key":[]}"#, #"{"app_key":{}}"#, #"{"tags":{"a":"b"}}"#, #"{"tags":[["x"]]}"#,
        #"{"registration_id":["a","b"]}"#, #"{"registration_id":"a"}"#, #"{"registration_id":null}"#, #"{"registration_id":[1]}"#,
        #"{"registration_id":["a",null]}"#, #"{"registration_id":{}}"#, #"{"registration_id":7}"#, #"{"registration_id":"a","registration_id":["b"]}"#,
        #"{"value":3}"#, #"{"value":-2147483649}"#, #"{"value":3.5}"#, #"{"value":"3"}"#, #"{"value":null}"#, #"{"value":2.0}"#,
        #"{"voip_token":null}"#, #"{"voip_token":"t"}"#, #"{"voip_token":1}"#, #"{"voip_token":null,"voip_token":"t"}"#,
        #"{"code":0,"registration_ids":["a"],"next_cursor":null,"total":1}"#, #"{"code":0.0,"registration_ids":[],"total":1}"#,
        #"{"code":6005,"message":null}"#, #"{"code":"0"}"#, #"{"code":null}"#, #"{"code":0}"#,
        #"{"euid":"e","user_id":1.50,"anonymous_id":null,"email":{"a":[1]},"phone":"p","device_id":"d"}"#,
        #"{"app_key":"a","euid":"e","events":[{"name":"n","properties":{"p":1.50,"q":[null]},"time":"t"},{}],"utm":{"utm_source":"s"}}"#,
        #"{"events":[{"name":1}]}"#, #"{"events":{}}"#, #"{"events":[null]}"#, #"{"utm":{"a":1}}"#, #"{"utm":{"a":null}}"#,
        #"{"publisher":"p","seq":9223372036854775807,"epoch":null,"time":"t","app_key":"a","registration_id":"r","added":[],"removed":["x"]}"#,
        #"{"publisher":"p","seq":-9223372036854775809,"time":"t","app_key":"a","registration_id":"r","added":[],"removed":[]}"#,
        #"{"publisher":"p","seq":1.0,"time":"t","app_key":"a","registration_id":"r","added":[],"removed":[]}"#,
        #"{"all":true,"limit":0,"cursor":"c","tag_and":["a"],"tag_not":[],"channel":["c"],"alias":["x"],"tag":["t"]}"#,
        #"{"all":"true"}"#, #"{"all":1}"#, #"{"limit":1.5}"#, "{}", "  {}  ",
    ]

    @Test func schemaTypesDecodeAsFromTheTree() {
        for text in Self.schemaDocuments {
            same(Envelope<TagsChange>.self, text)
            same(TagsChange.self, text)
            same(DeviceRef.self, text)
            same(Envelope<DeviceUpdate>.self, text)
            same(Envelope<BadgeSet>.self, text)
            same(Envelope<AudienceResolve>.self, text)
            same(Reply<AudiencePage>.self, text)
            same(Envelope<MAEvents>.self, text)
            same(Envelope<MAIdentify>.self, text)
            same(Event<TagsChangedEvent>.self, text)
            same(Header.self, text)
        }
    }

    @Test func wireCodesAreTheSameAsFromTheTree() {
        func code<T: Decodable>(_ type: T.Type, _ text: String, readsInPlace: Bool) -> String {
            do throws(CommandError) {
                _ = try WireCodec.decode(type, from: Data(text.utf8), readsInPlace: readsInPlace)
                return "ok"
            } catch {
                return "\(error.code.rawValue) \(error.message)"
            }
        }
        for text in Self.schemaDocuments {
            #expect(code(Envelope<TagsChange>.self, text, readsInPlace: true) == code(Envelope<TagsChange>.self, text, readsInPlace: false), "\(text)")
            #expect(code(Envelope<DeviceUpdate>.self, text, readsInPlace: true) == code(Envelope<DeviceUpdate>.self, text, readsInPlace: false), "\(text)")
            #expect(code(Envelope<BadgeSet>.self, text, readsInPlace: true) == code(Envelope<BadgeSet>.self, text, readsInPlace: false), "\(text)")
            #expect(code(Envelope<AudienceResolve>.self, text, readsInPlace: true) == code(Envelope<AudienceResolve>.self, text, readsInPlace: false), "\(text)")
            #expect(code(Envelope<MAEvents>.self, text, readsInPlace: true) == code(Envelope<MAEvents>.self, text, readsInPlace: false), "\(text)")
            #expect(code(Event<TagsChangedEvent>.self, text, readsInPlace: true) == code(Event<TagsChangedEvent>.self, text, readsInPlace: false), "\(text)")
            #expect(WireCodec.seq(of: Data(text.utf8)) == (try? JSONTreeDecoder().decodeFromTree(Header.self, from: Data(text.utf8)))?.seq)
        }
    }

    // MARK: Top-level shapes

    @Test func topLevelShapes() throws {
        for text in [#"{"a":1,"b":2,"a":3}"#, #"{"a":1.0}"#, #"{"a":null}"#, #"{"a":"1"}"#, "{}", #"{"":0}"#, #"{"1":0,"x":1}"#] {
            same([String: Int].self, text)
            same([String: Int?].self, text)
            same([String: Double].self, text)
            same([String: JSONValue].self, text)
            same([Int: Int].self, text)
            same(String.self, text)
            same(Int.self, text)
            same(Bool.self, text)
            same([String].self, text)
            same([Int].self, text)
            same(Int?.self, text)
            same(JSONValue?.self, text)
            same(Word.self, text)
            same(Wrapped.self, text)
            same(JSONValueBox.self, text)
        }
        // The top-level JSONValue is read from the tree, but read in place it is the same value.
        let text = #" {"a":[1,{"b":null}],"c":"d"} "#
        #expect(try DecodedBothWays.inPlace(JSONValue.self, text)?.get() == (try DecodedBothWays.fromTree(JSONValue.self, text).get()))
    }

    // MARK: Found divergences

    /// A key compared as a String (the tree) is equal to another by canonical equivalence: the Kelvin
    /// sign U+212A is `K`. Compared byte for byte in place, it is not there, and a type that catches
    /// the missing key reads nil in place where the tree reads 1.
    @Test func aKeyCanonicallyEqualToTheDocumentsKeyIsFoundAsTheTreeFindsIt() throws {
        #expect("\u{212A}" == "K")
        let text = #"{"K":1}"#
        let theirs = try DecodedBothWays.fromTree(Kelvin.self, text).get()
        #expect(theirs == Kelvin(v: 1, contains: true))
        same(Kelvin.self, text)
        #expect(try JSONTreeDecoder().decode(Kelvin.self, from: Data(text.utf8)) == theirs)
    }

    /// `superDecoder()` reads the member spelled `super`, as Foundation's decoder does, whatever the
    /// key type makes of that name: in place and from the tree alike.
    @Test func superDecoderReadsTheMemberNamedSuper() throws {
        let text = #"{"super":1,"SUPER":2}"#
        #expect(try DecodedBothWays.fromTree(UpperSuper.self, text).get().v == 1)
        #expect(try JSONDecoder().decode(UpperSuper.self, from: Data(text.utf8)).v == 1)
        same(UpperSuper.self, text)
    }

    /// A key type with no key named `super`: the tree once trapped on `Key(stringValue: "super")!`.
    @Test func superDecoderOfAKeyTypeWithoutSuper() throws {
        for text in [#"{"super":5,"a":1}"#, #"{"a":1}"#, #"{"super":5,"a":"\u0041"}"#] {
            same(NoSuperKey.self, text, inPlace: !text.contains("\\"))
        }
        #expect(try DecodedBothWays.fromTree(NoSuperKey.self, #"{"super":5}"#).get().v == 5)
    }

    /// The narrower integers, whose own `init(from:)` and `encode(to:)` ask the single-value container
    /// for their type: once a recursion without end in both the tree's decoder and its encoder.
    @Test func narrowerIntegersDecodeAndEncode() throws {
        for text in ["0", "-1", "127", "128", "-129", "255", "256", "32767", "32768", "65535", "65536", "4294967295", "4294967296", "1.0", "1.5", "null", #""1""#] {
            let document = "{\"v\":\(text)}"
            same(One<Int8>.self, document)
            same(One<Int16>.self, document)
            same(One<UInt8>.self, document)
            same(One<UInt16>.self, document)
            same(One<UInt32>.self, document)
            if let foundation = try? JSONDecoder().decode(One<UInt8>.self, from: Data(document.utf8)) {
                #expect(try DecodedBothWays.fromTree(One<UInt8>.self, document).get() == foundation)
            }
        }
        let values = Narrow(a: -128, b: -32768, c: 255, d: 65535, e: 4_294_967_295)
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(try JSONTreeEncoder().encode(values) == foundation.encode(values))
        #expect(try JSONTreeDecoder().decode(Narrow.self, from: JSONTreeEncoder().encode(values)) == values)
    }

    /// A type may keep its decoder and read later (a payload decoded once its type is known). Kept
    /// from the tree it holds the values; kept from in place it points into the caller's bytes.
    @Test func aKeptDecoderReadsTheDocumentItWasGiven() throws {
        var data = Data(#"{"v":"hello, this is a long enough document"}"#.utf8)
        let kept = try JSONTreeDecoder().decode(KeepsDecoder.self, from: data)
        let fromTree = try JSONTreeDecoder().decodeFromTree(KeepsDecoder.self, from: data)
        data[6] = UInt8(ascii: "J")  // the caller reuses its buffer, same length
        #expect(try fromTree.read() == "hello, this is a long enough document")
        let read = try kept.read()
        #expect(read == "hello, this is a long enough document", "read \(read) after the caller changed its buffer")
    }

    /// A document that is a slice of a larger buffer (a frame of a message) reads as a copy of it does.
    @Test func documentsThatAreSlicesOfALargerBuffer() throws {
        let frame = Data("xx\\{\"app_key\":\"a\",\"tags\":[\"x\"],\"seq\":3}  ".utf8) + Data(#"{"app_key":"b","tags":["y"]}"#.utf8)
        let slice = frame[frame.startIndex + 3..<frame.startIndex + 3 + 37]
        #expect(slice.startIndex != 0)
        let fromSlice = try JSONTreeDecoder().decode(Envelope<TagsChange>.self, from: slice)
        #expect(fromSlice == (try JSONTreeDecoder().decodeFromTree(Envelope<TagsChange>.self, from: Data(slice))))
        #expect(fromSlice.payload.tags == ["x"] && fromSlice.seq == 3)
        #expect(slice.withUnsafeBytes { ScanDecoder.reading($0) } != nil)
        let tail = frame[(frame.startIndex + 40)...]
        #expect(try JSONTreeDecoder().decode(TagsChange.self, from: tail) == (try JSONTreeDecoder().decodeFromTree(TagsChange.self, from: Data(tail))))
        #expect(tail.withUnsafeBytes { ScanDecoder.reading($0) } != nil)
    }
}

// MARK: Types read by the tests

/// The field `v` as a `T`.
private struct One<T: Decodable & Equatable>: Decodable, Equatable {
    let v: T
}

/// The field `v` as a `T` when present and not null.
private struct Present<T: Decodable & Equatable>: Decodable, Equatable {
    let v: T?
}

private enum Word: String, Decodable, Equatable { case x, a, `true` = "true", empty = "" }
private enum Count: Int, Decodable, Equatable { case zero = 0, one = 1, seven = 7, minus = -1 }
private struct Small: Decodable, Equatable { var v: Int?; var a: String? }

/// A value read through a single value container, as a list of strings.
private struct Wrapped: Decodable, Equatable {
    var words: [String]
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        words = container.decodeNil() ? [] : try container.decode([String].self)
    }
}

/// A whole object kept as a user tree, through a single value container.
private struct JSONValueBox: Decodable, Equatable {
    var value: JSONValue
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(JSONValue.self) }
}

/// Tries one type after another, as a union type does, noting which one read.
private struct Guess: Decodable, Equatable {
    var branch: String
    init(from decoder: any Decoder) throws {
        if let c = try? decoder.container(keyedBy: AnyKey.self), let v = try? c.decode(Guess.self, forKey: AnyKey("v")) {
            branch = "object v \(v.branch)"
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { branch = "null" }
        else if let value = try? single.decode(Int.self) { branch = "int \(value)" }
        else if let value = try? single.decode(Int64.self) { branch = "int64 \(value)" }
        else if let value = try? single.decode(UInt64.self) { branch = "uint64 \(value)" }
        else if let value = try? single.decode(Double.self) { branch = "double \(value)" }
        else if let value = try? single.decode(Bool.self) { branch = "bool \(value)" }
        else if let value = try? single.decode(Word.self) { branch = "word \(value)" }
        else if let value = try? single.decode(String.self) { branch = "string \(value)" }
        else if let value = try? single.decode([String].self) { branch = "strings \(value)" }
        else if let value = try? single.decode([Int?].self) { branch = "ints \(value)" }
        else if let value = try? single.decode([Guess].self) { branch = "list \(value.map(\.branch))" }
        else if let value = try? single.decode([String: Int].self) { branch = "counts \(value.sorted { $0.key < $1.key })" }
        else if let value = try? single.decode(Small.self) { branch = "small \(value)" }
        else { branch = "tree \(try single.decode(JSONValue.self))" }
    }
}

/// Notes each thing a decoder lets a type ask, over the keys `v`, `w`, `super` and the empty key.
private struct Recorder: Decodable, Equatable {
    var notes: [String] = []

    init(from decoder: any Decoder) throws {
        notes.append("path \(decoder.codingPath.map(\.stringValue))")
        notes.append("single nil \(Self.note { try decoder.singleValueContainer().decodeNil() })")
        notes.append("unkeyed \(Self.note { try Self.items(try decoder.unkeyedContainer()) })")
        guard let c = try? decoder.container(keyedBy: AnyKey.self) else { return }
        notes.append("keys \(c.allKeys.map(\.stringValue)) path \(c.codingPath.map(\.stringValue))")
        for name in ["v", "w", "super", "", "missing"] {
            let key = AnyKey(name)
            notes.append("\(name): contains \(c.contains(key)) nil \(Self.note { try c.decodeNil(forKey: key) })")
            notes.append(Self.note { try c.decode(Recorder.self, forKey: key).notes })
            notes.append(Self.note { try c.decodeIfPresent(Recorder.self, forKey: key)?.notes })
            notes.append(Self.note { try c.decodeIfPresent(Int32.self, forKey: key) })
            notes.append(Self.note { try c.decodeIfPresent(UInt64.self, forKey: key) })
            notes.append(Self.note { try c.decodeIfPresent(Float.self, forKey: key) })
            notes.append(Self.note { try c.decodeIfPresent(JSONValue.self, forKey: key) })
            notes.append(Self.note { try c.decode(Word.self, forKey: key) })
            notes.append(Self.note { try c.decode(Count.self, forKey: key) })
            notes.append(Self.note { try Self.items(try c.nestedUnkeyedContainer(forKey: key)) })
            notes.append(Self.note { try c.nestedContainer(keyedBy: AnyKey.self, forKey: key).allKeys.map(\.stringValue) })
            notes.append(Self.note { try Recorder(from: try c.superDecoder(forKey: key)).notes })
        }
        notes.append(Self.note { try Recorder(from: try c.superDecoder()).notes })
    }

    /// Reads an unkeyed container every way, noting each read.
    static func items(_ container: any UnkeyedDecodingContainer) throws -> [String] {
        var container = container
        var read: [String] = ["count \(String(describing: container.count)) path \(container.codingPath.map(\.stringValue))"]
        var guardCount = 0
        while !container.isAtEnd, guardCount < 20 {
            guardCount += 1
            read.append("at \(container.currentIndex)")
            read.append(note { try container.decodeNil() })
            read.append(note { try container.decode(Int.self) })
            read.append(note { try container.decodeIfPresent(Int64.self) })
            read.append(note { try container.decode(Bool.self) })
            read.append(note { try container.decode(Word.self) })
            read.append(note { var inner = try container.nestedUnkeyedContainer(); return try inner.decodeNil() })
            read.append(note { try container.nestedContainer(keyedBy: AnyKey.self).allKeys.map(\.stringValue) })
            read.append(note { try Recorder(from: try container.superDecoder()).notes })
        }
        read.append(note { try container.decodeNil() })
        read.append(note { try container.decode(String.self) })
        read.append(note { try container.superDecoder().codingPath.count })
        return read
    }

    static func note<T>(_ read: () throws -> T) -> String {
        do { return "\(try read())" } catch { return ScanDecoderAdversarialTests.kind(error) }
    }
}

/// Nested arrays and objects to any depth, noting their shape.
private struct Nest: Decodable, Equatable {
    var shape: String
    init(from decoder: any Decoder) throws {
        if var items = try? decoder.unkeyedContainer() {
            var inner: [String] = []
            while !items.isAtEnd { inner.append(try items.decode(Nest.self).shape) }
            shape = "[\(inner.joined(separator: ","))]"
        } else if let c = try? decoder.container(keyedBy: AnyKey.self) {
            shape = "{" + (try c.allKeys.map { "\($0.stringValue):\(try c.decode(Nest.self, forKey: $0).shape)" }.joined(separator: ",")) + "}"
        } else {
            shape = (try? decoder.singleValueContainer().decode(JSONValue.self)).map { "\($0)" } ?? "?"
        }
    }
}

/// Reads the empty key and the key `v`.
private struct EmptyKey: Decodable, Equatable {
    var empty: JSONValue?
    var v: JSONValue?
    enum CodingKeys: String, CodingKey { case empty = "", v }
}

/// Reads `super` through `superDecoder()`.
private final class SuperReader: Decodable, Equatable {
    let value: String
    required init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        value = (try? c.superDecoder()).map { superDecoder in
            "\(Recorder.note { try superDecoder.singleValueContainer().decode(JSONValue.self) }) \(superDecoder.codingPath.count)"
        } ?? "none"
    }
    static func == (a: SuperReader, b: SuperReader) -> Bool { a.value == b.value }
}

private struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(_ name: String) { stringValue = name; intValue = nil }
    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { stringValue = "\(intValue)"; self.intValue = intValue }
}

/// Its key is the Kelvin sign, canonically equivalent to `K`; a missing key reads nil.
private struct Kelvin: Decodable, Equatable {
    var v: Int?
    var contains: Bool
    enum CodingKeys: String, CodingKey { case v = "\u{212A}" }
    init(v: Int?, contains: Bool) {
        self.v = v
        self.contains = contains
    }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        contains = c.contains(.v)
        v = try? c.decode(Int.self, forKey: .v)
    }
}

/// Its key type spells every key in capitals, `super` too.
private struct NoSuperKey: Decodable, Equatable {
    var a: Int?
    var v: Int?
    enum CodingKeys: String, CodingKey { case a }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        a = try? c.decode(Int.self, forKey: .a)
        v = try? c.superDecoder().singleValueContainer().decode(Int.self)
    }
}

private struct Narrow: Codable, Equatable {
    let a: Int8
    let b: Int16
    let c: UInt8
    let d: UInt16
    let e: UInt32
}

private struct UpperSuper: Decodable, Equatable {
    var v: Int?
    struct Key: CodingKey {
        let stringValue: String
        init?(stringValue: String) { self.stringValue = stringValue.uppercased() }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        v = try? c.superDecoder().singleValueContainer().decode(Int.self)
    }
}

/// Keeps its decoder to read `v` later.
private struct KeepsDecoder: Decodable {
    let decoder: any Decoder
    init(from decoder: any Decoder) throws { self.decoder = decoder }
    func read() throws -> String {
        try decoder.container(keyedBy: AnyKey.self).decode(String.self, forKey: AnyKey("v"))
    }
}

