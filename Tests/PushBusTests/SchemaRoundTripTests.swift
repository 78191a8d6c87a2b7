import Foundation
import JSON
import Testing
import Schema

/// The wrappers every message travels in — `Envelope`, `Reply`, `Event` — and the building blocks
/// `Patch`, `JSONValue`, `Header` and `Empty` survive the codec unchanged.
@Suite("Schema round trips")
struct SchemaRoundTripTests {
    @Test("an envelope carries seq beside the payload's own fields")
    func envelope() throws {
        let payload = TagsChange(appKey: "a1", registrationID: "r1", tags: ["vip"])
        SchemaFixture.expectRoundTrip(Envelope(payload, seq: 9))
        SchemaFixture.expectRoundTrip(Envelope(payload))
        #expect(SchemaFixture.json(Envelope(payload, seq: 9))
                == #"{"app_key":"a1","registration_id":"r1","seq":9,"tags":["vip"]}"#)
        #expect(SchemaFixture.json(Envelope(payload)) == #"{"app_key":"a1","registration_id":"r1","tags":["vip"]}"#)
        let decoded = try WireCodec.decode(Envelope<TagsChange>.self,
                                           from: Data(#"{"seq":-1,"tags":[],"ts":1740816000}"#.utf8))
        #expect(decoded.seq == -1)
        #expect(decoded.payload == TagsChange(appKey: nil, registrationID: nil, tags: []))
    }

    @Test("the header reads only seq, and the codec finds it in any payload")
    func header() {
        SchemaFixture.expectRoundTrip(Header(seq: 5))
        SchemaFixture.expectRoundTrip(Header())
        #expect(WireCodec.seq(of: Data(#"{"registration_id":"r1","seq":12}"#.utf8)) == 12)
        #expect(WireCodec.seq(of: Data(#"{"registration_id":"r1"}"#.utf8)) == nil)
        #expect(WireCodec.seq(of: Data(#"{"seq":"12"}"#.utf8)) == nil)
        #expect(WireCodec.seq(of: Data("garbage".utf8)) == nil)
        #expect(WireCodec.seq(of: Data()) == nil)
    }

    @Test("an empty body is an empty object")
    func empty() {
        SchemaFixture.expectRoundTrip(Empty())
        #expect(SchemaFixture.json(Empty()) == "{}")
        #expect(SchemaFixture.json(Reply(Empty(), seq: 1)) == #"{"code":0,"seq":1}"#)
    }

    @Test("a success reply carries code 0, seq and the body's fields")
    func successReply() throws {
        let reply = Reply(BadgeValue(value: 3), seq: 8)
        SchemaFixture.expectRoundTrip(reply)
        SchemaFixture.expectRoundTrip(Reply(BadgeValue(value: 3)))
        #expect(SchemaFixture.json(reply) == #"{"code":0,"seq":8,"value":3}"#)
        #expect(reply.error == nil)
        let decoded = try WireCodec.decode(Reply<BadgeValue>.self, from: Data(#"{"code":0,"value":5}"#.utf8))
        #expect(decoded.body == BadgeValue(value: 5))
        #expect(decoded.seq == nil)
    }

    @Test("an error reply carries code and message and no body")
    func errorReply() throws {
        let failure = CommandError(.tagCharset, "tag has characters outside the allowed set")
        let reply = Reply<TagsReply>(error: failure, seq: 4)
        SchemaFixture.expectRoundTrip(reply)
        SchemaFixture.expectRoundTrip(Reply<Empty>(error: CommandError(.maNotStarted, "start not called")))
        #expect(SchemaFixture.json(reply)
                == #"{"code":6005,"message":"tag has characters outside the allowed set","seq":4}"#)
        #expect(reply.error == failure)
        #expect(try SchemaFixture.roundTrip(reply).error == failure)
        let withBody = try WireCodec.decode(Reply<TagsReply>.self,
                                            from: Data(#"{"code":6017,"message":"bad","tags":["x"]}"#.utf8))
        #expect(withBody.body == nil)
        #expect(withBody.error == CommandError(.invalidRequest, "bad"))
        let bare = try WireCodec.decode(Reply<BadgeValue>.self, from: Data(#"{"code":6024}"#.utf8))
        #expect(bare.error == CommandError(.internalError, "error 6024"))
        let frame = WireCodec.errorReply(.empty("registration_id is missing"), seq: 2)
        #expect(try WireCodec.decode(Reply<Empty>.self, from: frame)
                == Reply<Empty>(error: .empty("registration_id is missing"), seq: 2))
    }

    @Test("an event carries publisher, seq and time beside the body")
    func event() {
        let event = Event(publisher: "badge-0", sequence: 9_007_199_254_740_993, time: SchemaFixture.time,
                          body: BadgeChangedEvent(appKey: "a1", registrationID: "r1", value: 2))
        SchemaFixture.expectRoundTrip(event)
        #expect(SchemaFixture.json(event) == """
            {"app_key":"a1","publisher":"badge-0","registration_id":"r1","seq":9007199254740993,\
            "time":"2025-03-01T08:00:00Z","value":2}
            """)
    }

    @Test("a patch is absent, null or a value on the wire")
    func patch() throws {
        func update(_ token: Patch<String>) -> DeviceUpdate {
            DeviceUpdate(appKey: "a1", registrationID: "r1", voipToken: token)
        }
        #expect(SchemaFixture.json(update(.absent)) == #"{"app_key":"a1","registration_id":"r1"}"#)
        #expect(SchemaFixture.json(update(.null)) == #"{"app_key":"a1","registration_id":"r1","voip_token":null}"#)
        #expect(SchemaFixture.json(update(.value("ef02")))
                == #"{"app_key":"a1","registration_id":"r1","voip_token":"ef02"}"#)
        for token in [Patch<String>.absent, .null, .value("ef02"), .value("")] {
            let decoded = try SchemaFixture.roundTrip(update(token))
            #expect(decoded.voipToken == token)
        }
        #expect(Patch<String>.value("x").wrapped == "x")
        #expect(Patch<String>.null.wrapped == nil)
        #expect(Patch<String>.absent.isAbsent)
        #expect(!Patch<String>.null.isAbsent)
        for token in [Patch<String>.absent, .null, .value("aa11")] {
            SchemaFixture.expectRoundTrip(LiveActivityStartToken(appKey: "a1", registrationID: "r1",
                                                                 activityAttributes: "A", token: token))
            SchemaFixture.expectRoundTrip(LiveActivityToken(appKey: "a1", registrationID: "r1", liveActivityID: "l1",
                                                            token: token))
        }
    }

    @Test("JSON values nest and keep their kind")
    func jsonValue() throws {
        let nested: JSONValue = .object([
            "null": .null, "yes": .bool(true), "no": .bool(false), "zero": .number(0), "one": .number(1),
            "neg": .number(-42), "pi": .number(3.141592653589793), "big": .number(9.0e15), "tiny": .number(1e-7),
            "text": .string("北京 \"quoted\" \\ /"), "empty": .string(""),
            "list": .array([.number(1), .string("1"), .bool(true), .null, .array([]), .object([:])]),
            "deep": .object(["a": .object(["b": .array([.object(["c": .array([.number(2.5)])])])])]),
        ])
        let event = MAEvent(name: "e", properties: ["v": nested])
        SchemaFixture.expectRoundTrip(event)
        let decoded = try SchemaFixture.roundTrip(event)
        #expect(decoded.properties?["v"]?["one"] == .number(1))
        #expect(decoded.properties?["v"]?["yes"] == .bool(true))
        #expect(decoded.properties?["v"]?["text"]?.string == "北京 \"quoted\" \\ /")
        #expect(decoded.properties?["v"]?["pi"]?.number == 3.141592653589793)
        #expect(SchemaFixture.json(MAEvent(name: nil, properties: ["n": .number(3), "x": .number(0.5)]))
                == #"{"properties":{"n":3,"x":0.5}}"#)
    }
}
