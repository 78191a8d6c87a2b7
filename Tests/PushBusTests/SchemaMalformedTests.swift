import Foundation
import Testing
import Schema

/// Garbage, truncated, mistyped, incomplete and oversize frames throw a `CommandError` with the code the
/// SDKs expect (6017 malformed or mistyped, 6001 missing), and never crash.
@Suite("Malformed frames")
struct SchemaMalformedTests {
    /// Not a JSON object at all.
    static let garbage: [SchemaBadFrame] = [
        SchemaBadFrame("empty data", DeviceRef.self, Data()),
        SchemaBadFrame("only whitespace", DeviceRef.self, " \n\t\r "),
        SchemaBadFrame("null", DeviceRef.self, "null"),
        SchemaBadFrame("array", DeviceRef.self, "[1]"),
        SchemaBadFrame("number", BadgeValue.self, "42"),
        SchemaBadFrame("string", TagsReply.self, #""tags""#),
        SchemaBadFrame("true", Empty.self, "true"),
        SchemaBadFrame("unclosed object", Empty.self, "{"),
        SchemaBadFrame("two objects", Empty.self, "{}{}"),
        SchemaBadFrame("trailing garbage", DeviceRef.self, #"{"app_key":"a1"} x"#),
        SchemaBadFrame("single quotes", DeviceRef.self, "{'app_key':'a1'}"),
        SchemaBadFrame("bare key", DeviceRef.self, #"{app_key:"a1"}"#),
        SchemaBadFrame("NaN", LocationReport.self, #"{"latitude":NaN}"#),
        SchemaBadFrame("invalid UTF-8", TagsChange.self, Data([0x7B, 0x22, 0x74, 0x61, 0x67, 0x73, 0x22, 0x3A, 0x5B,
                                                                 0x22, 0xFF, 0xFE, 0x22, 0x5D, 0x7D])),
        SchemaBadFrame("NUL bytes", DeviceRef.self, Data([0x7B, 0x00, 0x00, 0x7D])),
        SchemaBadFrame("byte-order mark", DeviceRef.self, Data([0xEF, 0xBB, 0xBF]) + Data("{}".utf8)),
        SchemaBadFrame("unterminated string", AliasSet.self, #"{"alias":"member"#),
        SchemaBadFrame("lone surrogate escape", AliasSet.self, #"{"alias":"\ud800"}"#),
        SchemaBadFrame("reply as an array", Reply<BadgeValue>.self, #"[{"code":0,"value":1}]"#),
        SchemaBadFrame("event as null", Event<BadgeChangedEvent>.self, "null"),
    ]

    @Test("a frame that is not a JSON object is invalid", arguments: garbage)
    func notAnObject(_ frame: SchemaBadFrame) {
        #expect(frame.error?.code == .invalidRequest, "\(String(describing: frame.error))")
    }

    /// A field of the wrong JSON type.
    static let wrongTypes: [SchemaBadFrame] = [
        SchemaBadFrame("registration_id as a number", DeviceRef.self, #"{"registration_id":5}"#),
        SchemaBadFrame("app_key as an object", AppRef.self, #"{"app_key":{}}"#),
        SchemaBadFrame("apns_production as a string", DeviceRegister.self, #"{"apns_production":"yes"}"#),
        SchemaBadFrame("voip_token as a number", DeviceUpdate.self, #"{"voip_token":12}"#),
        SchemaBadFrame("token as an array", LiveActivityToken.self, #"{"token":["ab"]}"#),
        SchemaBadFrame("tags as a string", TagsChange.self, #"{"tags":"vip"}"#),
        SchemaBadFrame("tags of numbers", TagsChange.self, #"{"tags":[1,2]}"#),
        SchemaBadFrame("audience registration_id as a number", AudienceResolve.self, #"{"registration_id":5}"#),
        SchemaBadFrame("audience registration_id of numbers", AudienceResolve.self, #"{"registration_id":[5]}"#),
        SchemaBadFrame("audience alias as a string", AudienceResolve.self, #"{"alias":"a1"}"#),
        SchemaBadFrame("limit as a string", AudienceResolve.self, #"{"limit":"10"}"#),
        SchemaBadFrame("background_push as a number", ChannelSubscribe.self, #"{"background_push":1}"#),
        SchemaBadFrame("subscriptions as an object", ChannelSync.self, #"{"subscriptions":{"channel":"c"}}"#),
        SchemaBadFrame("badge value as a string", BadgeSet.self, #"{"value":"3"}"#),
        SchemaBadFrame("badge value fractional", BadgeSet.self, #"{"value":1.5}"#),
        SchemaBadFrame("badge value beyond Int", BadgeSet.self, #"{"value":1e40}"#),
        SchemaBadFrame("badge as a number", BadgeApply.self, #"{"badge":1}"#),
        SchemaBadFrame("trigger as a string", LocalAdd.self, #"{"trigger":"soon"}"#),
        SchemaBadFrame("time_interval as a string", LocalAdd.self, #"{"trigger":{"time_interval":"60"}}"#),
        SchemaBadFrame("weekday as a string", LocalAdd.self, #"{"trigger":{"date_components":{"weekday":"mon"}}}"#),
        SchemaBadFrame("user_info as an array", LocalAdd.self, #"{"content":{"user_info":[1]}}"#),
        SchemaBadFrame("delivered as a string", LocalFilter.self, #"{"delivered":"yes"}"#),
        SchemaBadFrame("latitude as a string", LocationReport.self, #"{"latitude":"north"}"#),
        SchemaBadFrame("unknown op", MAProperty.self, #"{"op":"explode"}"#),
        SchemaBadFrame("amount as a string", MAProperty.self, #"{"op":"increase","key":"k","amount":"2"}"#),
        SchemaBadFrame("euid as a number", MAIdentify.self, #"{"euid":7}"#),
        SchemaBadFrame("contacts as a string", MAContact.self, #"{"contacts":"a@b"}"#),
        SchemaBadFrame("events as an object", MAEvents.self, #"{"events":{"name":"x"}}"#),
        SchemaBadFrame("channel_id as a string", MAChannelValue.self, #"{"channel_id":"136"}"#),
        SchemaBadFrame("unknown stats kind", StatsReport.self, #"{"kind":"clicked"}"#),
        SchemaBadFrame("unknown bucket", StatsEvents.self, #"{"bucket":"week"}"#),
        SchemaBadFrame("msg_ids as a string", StatsMessage.self, #"{"msg_ids":"18100"}"#),
        SchemaBadFrame("reply code as a string", Reply<BadgeValue>.self, #"{"code":"0","value":1}"#),
        SchemaBadFrame("seq as a string", Envelope<DeviceRef>.self, #"{"seq":"1"}"#),
        SchemaBadFrame("event seq as a string", Event<BadgeChangedEvent>.self,
                       #"{"publisher":"p","seq":"1","time":"t","app_key":"a","registration_id":"r","value":1}"#),
    ]

    @Test("a field of the wrong type is invalid (6017)", arguments: wrongTypes)
    func wrongType(_ frame: SchemaBadFrame) {
        #expect(frame.error?.code == .invalidRequest, "\(String(describing: frame.error))")
    }

    @Test("a field of the wrong type is named, with what it must be, in the service's words", arguments: wrongTypes)
    func wrongTypeMessage(_ frame: SchemaBadFrame) throws {
        let message = try #require(frame.error?.message)
        #expect(message.firstMatch(of: /^[a-z_]+(\.[a-z_]+|\[[0-9]+\])* must be (a|an|one of) [a-z]/) != nil, "\(message)")
        for word in ["Int", "Double", "String", "Optional", "Swift", "fit", "initialize", "expected", "Kind", "Op", "Size"] {
            #expect(!message.contains(word), "\(message)")
        }
    }

    @Test("what a field must be, for each way of being wrong")
    func messages() {
        let said: [(SchemaBadFrame, String)] = [
            (SchemaBadFrame("badge fractional", LocalAdd.self, #"{"content":{"badge":1.5}}"#), "content.badge must be an integer"),
            (SchemaBadFrame("badge beyond Int", LocalAdd.self, #"{"content":{"badge":9.3e18}}"#),
             "content.badge must be an integer from -9223372036854775808 to 9223372036854775807"),
            (SchemaBadFrame("tag of a number", TagsChange.self, #"{"tags":["a",2]}"#), "tags[1] must be a string"),
            (SchemaBadFrame("unknown kind", StatsReport.self, #"{"kind":"clicked"}"#),
             "kind must be one of received, displayed, opened, inapp_show, inapp_click, voip_received, page_enter, page_leave"),
            (SchemaBadFrame("unknown bucket", StatsEvents.self, #"{"bucket":"week"}"#), "bucket must be one of hour, day"),
            (SchemaBadFrame("badge value missing", BadgeValue.self, "{}"), "value is missing"),
            (SchemaBadFrame("badge value null", BadgeValue.self, #"{"value":null}"#), "value must be an integer, not null"),
        ]
        for (frame, message) in said {
            #expect(frame.error?.message == message, "\(frame.label): \(String(describing: frame.error))")
        }
    }

    /// A required field of a non-optional type is missing or null.
    static let missing: [SchemaBadFrame] = [
        SchemaBadFrame("reply without code", Reply<Empty>.self, "{}"),
        SchemaBadFrame("reply without its value", Reply<BadgeValue>.self, #"{"code":0}"#),
        SchemaBadFrame("badge value missing", BadgeValue.self, "{}"),
        SchemaBadFrame("badge value null", BadgeValue.self, #"{"value":null}"#),
        SchemaBadFrame("is_bind missing", TagBinding.self, #"{"tag":"vip"}"#),
        SchemaBadFrame("master_secret missing", AppCreated.self, #"{"app_key":"a1"}"#),
        SchemaBadFrame("total missing", AudiencePage.self, #"{"registration_ids":[],"next_cursor":null}"#),
        SchemaBadFrame("subscription without channel", ChannelSync.self, #"{"subscriptions":[{"expires_at":"x"}]}"#),
        SchemaBadFrame("region without radius", LocalAdd.self, #"{"trigger":{"region":{"latitude":1,"longitude":2}}}"#),
        SchemaBadFrame("request without trigger", LocalFound.self,
                       #"{"requests":[{"identifier":"i","content":{}}]}"#),
        SchemaBadFrame("counts without opened", MessageStats.self,
                       #"{"messages":{"m":{"received":1,"displayed":1,"#
                       + #""inapp_show":0,"inapp_click":0,"voip_received":0}}}"#),
        SchemaBadFrame("profile without contacts", MAProfile.self, #"{"properties":{},"identities":{}}"#),
        SchemaBadFrame("bucket without count", EventStats.self, #"{"buckets":[{"start":"s"}]}"#),
        SchemaBadFrame("event without publisher", Event<BadgeChangedEvent>.self,
                       #"{"seq":1,"time":"t","app_key":"a","registration_id":"r","value":1}"#),
        SchemaBadFrame("local.fired without content", Event<LocalFiredEvent>.self,
                       #"{"publisher":"p","seq":1,"time":"t","app_key":"a","registration_id":"r","#
                       + #""identifier":"i","fired_at":"t"}"#),
        SchemaBadFrame("device without platform", DeviceInfo.self,
                       #"{"device":{"registration_id":"r","app_key":"a","apns_production":false,"#
                       + #""live_activity_start_tokens":{},"live_activity_tokens":{},"#
                       + #""created_at":"t","updated_at":"t"}}"#),
    ]

    @Test("a missing required field is an empty request (6001)", arguments: missing)
    func missingField(_ frame: SchemaBadFrame) {
        #expect(frame.error?.code == .emptyRequest, "\(String(describing: frame.error))")
    }

    /// Valid frames, full of nested fields, cut short.
    static let whole: [SchemaBadFrame] = [
        SchemaBadFrame("local.add", Envelope<LocalAdd>.self, WireCodec.encode(Envelope(LocalAdd(
            appKey: "a1", registrationID: "r1", identifier: "weekly", content: SchemaFixture.content,
            trigger: LocalTrigger(region: LocalRegion(latitude: 37.3354, longitude: -122.009201, radius: 2_000))),
            seq: 1))),
        SchemaBadFrame("channel.sync", ChannelSync.self, WireCodec.encode(ChannelSync(
            appKey: "a1", registrationID: "r1",
            subscriptions: [ChannelSubscription(channel: "c1", expiresAt: SchemaFixture.time, backgroundPush: true)]))),
        SchemaBadFrame("ma.property", MAProperty.self, WireCodec.encode(MAProperty(
            appKey: "a1", euid: "e1", op: .updateObjectArray, key: "addresses",
            values: .object(["city": .string("Tokyo"), "zip": .null]), identifierKey: "id",
            identifierValue: .number(1.5)))),
        SchemaBadFrame("device.update", DeviceUpdate.self, WireCodec.encode(DeviceUpdate(
            appKey: "a1", registrationID: "r1", voipToken: .null, timezone: "Asia/Shanghai"))),
        SchemaBadFrame("local.find reply", Reply<LocalFound>.self, WireCodec.encode(Reply(LocalFound(
            requests: [SchemaFixture.pending]), seq: 3))),
        SchemaBadFrame("local.fired event", Event<LocalFiredEvent>.self, WireCodec.encode(Event(
            publisher: "scheduler-0", sequence: 12, time: SchemaFixture.time,
            body: LocalFiredEvent(appKey: "a1", registrationID: "r1", identifier: "weekly",
                                  content: SchemaFixture.content, firedAt: SchemaFixture.time)))),
        SchemaBadFrame("error reply", Reply<TagsReply>.self, WireCodec.errorReply(.invalid("bad"), seq: 5)),
    ]

    @Test("a frame truncated at any byte is invalid", arguments: whole)
    func truncated(_ frame: SchemaBadFrame) {
        #expect(frame.error == nil, "the whole frame decodes")
        for length in 0..<frame.data.count {
            let error = frame.decode(frame.data.prefix(length))
            #expect(error?.code == .invalidRequest, "cut at \(length): \(String(describing: error))")
        }
    }

    @Test("random bytes throw, never crash")
    func randomBytes() {
        var random = SplitMix64(seed: 0x5EED_B05)
        for round in 0..<2_000 {
            let count = Int(random.next() % 96)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if round.isMultiple(of: 2) { bytes.insert(UInt8(ascii: "{"), at: 0) }
            let data = Data(bytes)
            let errors = [
                SchemaFixture.error(Envelope<LocalAdd>.self, data),
                SchemaFixture.error(MAProperty.self, data),
                SchemaFixture.error(Reply<AudiencePage>.self, data),
                SchemaFixture.error(Event<LocalFiredEvent>.self, data),
            ]
            for error in errors {
                #expect(error?.code == .invalidRequest, "round \(round): \(String(describing: error))")
            }
        }
    }

    @Test("random JSON-like text throws, never crashes")
    func randomJSONText() {
        let alphabet = Array(#"{}[]:,"\ 0123456789.eE-+truefalsnl_abcdxyz"#.utf8)
        var random = SplitMix64(seed: 0xC0DEC)
        for round in 0..<2_000 {
            let count = Int(random.next() % 64)
            let tail = (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            let bytes = [UInt8(ascii: "{")] + tail
            let data = Data(bytes)
            for error in [SchemaFixture.error(Reply<LocalFound>.self, data),
                          SchemaFixture.error(Event<TagsChangedEvent>.self, data)] {
                #expect(error != nil, "round \(round) decoded: \(String(decoding: data, as: UTF8.self))")
            }
        }
    }

    @Test("deeply nested JSON throws instead of overflowing the stack")
    func deepNesting() {
        let depth = 50_000
        let text = #"{"properties":{"v":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            + "}}"
        let error = SchemaFixture.error(MAEvent.self, text)
        #expect(error?.code == .invalidRequest, "\(String(describing: error))")
    }

    @Test("a payload over the size limit is invalid before it is parsed")
    func oversize() {
        let tags = (0..<30_000).map { "tag_\($0)" }
        let big = WireCodec.encode(TagsChange(appKey: "a1", registrationID: "r1", tags: tags))
        #expect(big.count > WireCodec.maxPayloadBytes)
        let error = SchemaFixture.error(TagsChange.self, big)
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("\(WireCodec.maxPayloadBytes)") == true)

        let small = WireCodec.encode(DeviceRef(appKey: "a1", registrationID: "r1"))
        let padding = Data(repeating: UInt8(ascii: " "), count: WireCodec.maxPayloadBytes - small.count)
        #expect(SchemaFixture.error(DeviceRef.self, small + padding) == nil, "exactly at the limit decodes")
        #expect(SchemaFixture.error(DeviceRef.self, small + padding + Data(" ".utf8))?.code == .invalidRequest)
    }

    /// A small deterministic generator, so a failing round can be replayed.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
