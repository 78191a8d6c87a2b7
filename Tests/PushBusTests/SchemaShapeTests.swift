import Foundation
import Testing
import Schema

/// Nested shapes and the fields whose wire form needs care: explicit nulls, trigger kinds, property ops,
/// flattened identifiers, payloads with nothing set.
@Suite("Schema shapes")
struct SchemaShapeTests {
    @Test("a device encodes every stored field")
    func device() {
        SchemaFixture.expectRoundTrip(SchemaFixture.device)
        #expect(SchemaFixture.keys(SchemaFixture.device) == [
            "registration_id", "app_key", "platform", "device_id", "apns_token", "apns_production", "sdk_version",
            "voip_token", "language", "timezone", "mobile", "live_activity_start_tokens", "live_activity_tokens",
            "created_at", "updated_at",
        ])
        let bare = Device(registrationID: "r1", appKey: "a1", platform: "android", createdAt: SchemaFixture.time,
                          updatedAt: SchemaFixture.time)
        SchemaFixture.expectRoundTrip(bare)
    }

    @Test("payloads with nothing set encode {} and come back the same")
    func emptyPayloads() {
        let device = DeviceRef(appKey: nil, registrationID: nil)
        #expect(SchemaFixture.json(device) == "{}")
        #expect(SchemaFixture.json(TagsChange(appKey: nil, registrationID: nil, tags: nil)) == "{}")
        #expect(SchemaFixture.json(AudienceResolve(appKey: nil)) == "{}")
        #expect(SchemaFixture.json(LocalAdd(appKey: nil, registrationID: nil, identifier: nil, content: nil,
                                            trigger: nil)) == "{}")
        #expect(SchemaFixture.json(MAProperty(appKey: nil, euid: nil, op: nil)) == "{}")
        #expect(SchemaFixture.json(MAIdentify(appKey: nil, euid: nil, user: MAUserID())) == "{}")
        SchemaFixture.expectRoundTrip(device)
        SchemaFixture.expectRoundTrip(AppCreate(name: nil))
        SchemaFixture.expectRoundTrip(DeviceRegister(appKey: nil, platform: nil))
        SchemaFixture.expectRoundTrip(DeviceUpdate(appKey: nil, registrationID: nil))
        SchemaFixture.expectRoundTrip(DeviceMobile(appKey: nil, registrationID: nil, mobile: nil))
        SchemaFixture.expectRoundTrip(TagCheck(appKey: nil, registrationID: nil, tag: nil))
        SchemaFixture.expectRoundTrip(AliasSet(appKey: nil, registrationID: nil, alias: nil))
        SchemaFixture.expectRoundTrip(ChannelSubscribe(appKey: nil, registrationID: nil, channel: nil))
        SchemaFixture.expectRoundTrip(ChannelRef(appKey: nil, registrationID: nil, channel: nil))
        SchemaFixture.expectRoundTrip(ChannelSync(appKey: nil, registrationID: nil, subscriptions: nil))
        SchemaFixture.expectRoundTrip(AudienceResolve(appKey: nil))
        SchemaFixture.expectRoundTrip(AppRef(appKey: nil))
        SchemaFixture.expectRoundTrip(TagsCount(appKey: nil, tags: nil))
        SchemaFixture.expectRoundTrip(AliasLookup(appKey: nil, alias: nil))
        SchemaFixture.expectRoundTrip(BadgeSet(appKey: nil, registrationID: nil, value: nil))
        SchemaFixture.expectRoundTrip(BadgeApply(appKey: nil, registrationIDs: nil, badge: nil, msgID: nil))
        SchemaFixture.expectRoundTrip(LocalAdd(appKey: nil, registrationID: nil, identifier: nil, content: nil,
                                               trigger: nil))
        SchemaFixture.expectRoundTrip(LocalFilter(appKey: nil, registrationID: nil, identifiers: nil, delivered: nil))
        SchemaFixture.expectRoundTrip(LocationReport(appKey: nil, registrationID: nil, latitude: nil, longitude: nil))
        SchemaFixture.expectRoundTrip(MAStart(appKey: nil, deviceID: nil))
        SchemaFixture.expectRoundTrip(MAIdentify(appKey: nil, euid: nil, user: MAUserID()))
        SchemaFixture.expectRoundTrip(MAContact(appKey: nil, euid: nil, contacts: nil))
        SchemaFixture.expectRoundTrip(MAEvents(appKey: nil, euid: nil, events: nil))
        SchemaFixture.expectRoundTrip(MAProperty(appKey: nil, euid: nil, op: nil))
        SchemaFixture.expectRoundTrip(MAChannelValue(appKey: nil, euid: nil, channelID: nil, values: nil))
        SchemaFixture.expectRoundTrip(MAUserRef(appKey: nil, euid: nil))
        SchemaFixture.expectRoundTrip(StatsReport(appKey: nil, registrationID: nil, kind: nil))
        SchemaFixture.expectRoundTrip(StatsMessage(appKey: nil, msgIDs: nil))
        SchemaFixture.expectRoundTrip(StatsEvents(appKey: nil, from: nil, to: nil, bucket: nil))
    }

    @Test("tags and alias replies write null out; absent decodes as null")
    func explicitNulls() throws {
        #expect(SchemaFixture.json(TagsReply(tags: nil)) == #"{"tags":null}"#)
        #expect(SchemaFixture.json(Reply(TagsReply(tags: nil), seq: 3)) == #"{"code":0,"seq":3,"tags":null}"#)
        #expect(SchemaFixture.json(AliasReply(alias: nil)) == #"{"alias":null}"#)
        #expect(SchemaFixture.json(AudiencePage(registrationIDs: [], nextCursor: nil, total: 0))
                == #"{"next_cursor":null,"registration_ids":[],"total":0}"#)
        #expect(try WireCodec.decode(TagsReply.self, from: Data("{}".utf8)) == TagsReply(tags: nil))
        #expect(try WireCodec.decode(AliasReply.self, from: Data(#"{"alias":null}"#.utf8)) == AliasReply(alias: nil))
        SchemaFixture.expectRoundTrip(AudiencePage(registrationIDs: ["r1"], nextCursor: nil, total: 1))
    }

    @Test("an audience's registration_id is a list, or one string read as a list of one")
    func audienceRegistrationIDs() throws {
        let list = try WireCodec.decode(AudienceResolve.self, from: Data(#"{"app_key":"a1","registration_id":["r1","r2"],"limit":5}"#.utf8))
        #expect(list == AudienceResolve(appKey: "a1", registrationIDs: ["r1", "r2"], limit: 5))
        let one = try WireCodec.decode(AudienceResolve.self, from: Data(#"{"app_key":"a1","registration_id":"r1","tag":["vip"]}"#.utf8))
        #expect(one == AudienceResolve(appKey: "a1", registrationIDs: ["r1"], tags: ["vip"]))
        SchemaFixture.expectRoundTrip(AudienceResolve(appKey: "a1", registrationIDs: ["r1"], aliases: ["u"], tags: ["t"], tagAnd: ["x"],
                                                      tagNot: ["y"], channels: ["c"], cursor: "c1", limit: 9))
    }

    @Test("channel subscriptions keep expiry and background flag")
    func channelSubscription() {
        let full = ChannelSubscription(channel: "match-42", expiresAt: "2025-03-02T00:00:00Z", backgroundPush: true)
        #expect(SchemaFixture.keys(full) == ["channel", "expires_at", "background_push"])
        #expect(SchemaFixture.json(ChannelSubscription(channel: "news")) == #"{"channel":"news"}"#)
        SchemaFixture.expectRoundTrip(full)
        SchemaFixture.expectRoundTrip(ChannelSubscription(channel: "news"))
    }

    @Test("local content carries every field and any user_info")
    func localContent() {
        #expect(SchemaFixture.keys(SchemaFixture.content) == [
            "title", "subtitle", "body", "badge", "sound", "category", "user_info",
        ])
        SchemaFixture.expectRoundTrip(SchemaFixture.content)
        SchemaFixture.expectRoundTrip(LocalContent())
        #expect(SchemaFixture.json(LocalContent()) == "{}")
    }

    @Test("each trigger kind round-trips and is recognised")
    func triggerKinds() {
        let interval = LocalTrigger(timeInterval: 60, repeats: true)
        let calendar = LocalTrigger(
            dateComponents: CalendarComponents(year: 2025, month: 3, day: 3, weekday: 2, hour: 8, minute: 30,
                                               second: 0),
            repeats: false, timezone: "Asia/Shanghai")
        let date = LocalTrigger(fireDate: "2025-03-01T08:00:05Z")
        let region = LocalTrigger(region: LocalRegion(latitude: 37.3354, longitude: -122.009201, radius: 2_000,
                                                      notifyOnEntry: true, notifyOnExit: false, repeats: true))
        #expect(interval.kind == .timeInterval)
        #expect(calendar.kind == .dateComponents)
        #expect(date.kind == .fireDate)
        #expect(region.kind == .region)
        #expect(LocalTrigger().kind == nil)
        #expect(LocalTrigger(timeInterval: 5, fireDate: "2025-03-01T08:00:05Z").kind == nil)
        for trigger in [interval, calendar, date, region, LocalTrigger(timeInterval: 0.5)] {
            SchemaFixture.expectRoundTrip(trigger)
        }
        #expect(SchemaFixture.json(interval) == #"{"repeat":true,"time_interval":60}"#)
        #expect(SchemaFixture.keys(calendar) == ["date_components", "repeat", "timezone"])
        #expect(SchemaFixture.keys(calendar.dateComponents) == [
            "year", "month", "day", "weekday", "hour", "minute", "second",
        ])
        #expect(SchemaFixture.json(date) == #"{"fire_date":"2025-03-01T08:00:05Z"}"#)
        #expect(SchemaFixture.keys(region.region) == [
            "latitude", "longitude", "radius", "notify_on_entry", "notify_on_exit", "repeat",
        ])
        #expect(SchemaFixture.json(CalendarComponents(weekday: 2, hour: 8)) == #"{"hour":8,"weekday":2}"#)
    }

    @Test("pending requests and delivered notifications")
    func localFound() {
        SchemaFixture.expectRoundTrip(SchemaFixture.pending)
        SchemaFixture.expectRoundTrip(SchemaFixture.delivered)
        #expect(SchemaFixture.keys(SchemaFixture.pending) == ["identifier", "content", "trigger", "next_fire_at"])
        #expect(SchemaFixture.keys(SchemaFixture.delivered) == ["identifier", "content", "trigger", "fired_at"])
        SchemaFixture.expectRoundTrip(LocalFound(requests: []))
        SchemaFixture.expectRoundTrip(LocalFound(notifications: []))
        SchemaFixture.expectRoundTrip(LocalAdded(identifier: "near-office", nextFireAt: nil))
    }

    @Test("every ma.property op round-trips with its own fields")
    func propertyOps() {
        let app = "app_7f3a", euid = "eu_0001"
        let cases: [(MAProperty, Set<String>)] = [
            (MAProperty(appKey: app, euid: euid, op: .set, properties: [
                "level": .string("gold"), "profile": .object(["city": .string("Singapore"), "score": .number(100)]),
                "addresses": .array([.object(["id": .string("home")]), .object(["id": .string("office")])]),
            ]), ["properties"]),
            (MAProperty(appKey: app, euid: euid, op: .set, key: "profile",
                        value: .value(.object(["city": .null]))), ["key", "value"]),
            (MAProperty(appKey: app, euid: euid, op: .set, key: "profile", value: .null), ["key", "value"]),
            (MAProperty(appKey: app, euid: euid, op: .increase, properties: ["spent": .number(2.5)]), ["properties"]),
            (MAProperty(appKey: app, euid: euid, op: .increase, key: "spent", amount: -3), ["key", "amount"]),
            (MAProperty(appKey: app, euid: euid, op: .add, properties: ["likes": .array([.string("tea")])]),
             ["properties"]),
            (MAProperty(appKey: app, euid: euid, op: .add, key: "likes", values: .array([.string("tea")])),
             ["key", "values"]),
            (MAProperty(appKey: app, euid: euid, op: .remove, key: "likes", values: .array([.string("tea")])),
             ["key", "values"]),
            (MAProperty(appKey: app, euid: euid, op: .delete, key: "likes"), ["key"]),
            (MAProperty(appKey: app, euid: euid, op: .updateObjectArray, key: "addresses", values: .object([
                "city": .string("Tokyo"), "zip": .null,
            ]), identifierKey: "id", identifierValue: .string("home")),
             ["key", "identifier_key", "identifier_value", "values"]),
            (MAProperty(appKey: app, euid: euid, op: .addObjectArray, key: "addresses",
                        object: ["id": .string("school"), "city": .string("Osaka")]), ["key", "object"]),
            (MAProperty(appKey: app, euid: euid, op: .removeObjectArray, key: "addresses", identifierKey: "id",
                        identifierValue: .number(3)), ["key", "identifier_key", "identifier_value"]),
        ]
        for (property, keys) in cases {
            SchemaFixture.expectRoundTrip(property)
            #expect(SchemaFixture.keys(property) == keys.union(["app_key", "euid", "op"]),
                    "\(String(describing: property.op))")
        }
        #expect(MAPropertyOp.allCases.map(\.rawValue) == [
            "set", "increase", "add", "remove", "delete", "update_object_array", "add_object_array",
            "remove_object_array",
        ])
    }

    @Test("ma.property tells a null value from an absent one")
    func propertyNullValue() throws {
        let null = try WireCodec.decode(MAProperty.self, from: Data(#"{"op":"set","key":"k","value":null}"#.utf8))
        let absent = try WireCodec.decode(MAProperty.self, from: Data(#"{"op":"set","key":"k"}"#.utf8))
        let nested = try WireCodec.decode(MAProperty.self,
                                          from: Data(#"{"op":"set","key":"k","value":{"a":null}}"#.utf8))
        #expect(null.value == .null)
        #expect(absent.value == .absent)
        #expect(nested.value == .value(.object(["a": .null])))
        #expect(SchemaFixture.json(null) == #"{"key":"k","op":"set","value":null}"#)
        #expect(SchemaFixture.json(absent) == #"{"key":"k","op":"set"}"#)
    }

    @Test("ma.identify sends the identifiers flat, of any JSON type")
    func identifyIsFlat() throws {
        let identify = MAIdentify(appKey: "a1", euid: "e1",
                                  user: MAUserID(userID: .string("u1"), email: .string("x@y")))
        #expect(SchemaFixture.json(identify) == #"{"app_key":"a1","email":"x@y","euid":"e1","user_id":"u1"}"#)
        let odd = try WireCodec.decode(MAIdentify.self,
                                       from: Data(#"{"euid":"e1","user_id":123,"phone":null,"email":["x"]}"#.utf8))
        #expect(odd.user == MAUserID(userID: .number(123), email: .array([.string("x")])))
        #expect(SchemaFixture.keys(SchemaFixture.user) == ["user_id", "anonymous_id", "email", "phone"])
        SchemaFixture.expectRoundTrip(SchemaFixture.user)
        SchemaFixture.expectRoundTrip(MAStart(appKey: "a1", deviceID: "d1", user: MAUserID(phone: .string("+65"))))
    }

    @Test("ma.identify results travel as JSON text in message")
    func identifyResults() throws {
        let identified = MAIdentified(euid: "e1", results: [
            "email": MAFieldResult(code: .success),
            "phone": MAFieldResult(code: .maFieldTooLong, msg: "User identifier value exceeds the length limit"),
        ])
        #expect(identified.message == #"{"email":{"code":0},"#
                + #""phone":{"code":3003,"msg":"User identifier value exceeds the length limit"}}"#)
        #expect(MAIdentified(euid: "e1", results: [:]).message == "")
        let results = try WireCodec.decode([String: MAFieldResult].self, from: Data(identified.message.utf8))
        #expect(results["phone"]?.code == .maFieldTooLong)
        SchemaFixture.expectRoundTrip(MAFieldResult(code: .maFieldInvalid, msg: "not a string"))
    }

    @Test("contacts, events and profiles keep the MA seed's names")
    func analyticsShapes() {
        #expect(SchemaFixture.keys(SchemaFixture.contacts) == [
            "email", "mobile_phone", "landline_phone", "whatsapp_phone",
        ])
        SchemaFixture.expectRoundTrip(SchemaFixture.contacts)
        let event = MAEvent(name: "sndefineevent2", properties: ["key1": .string("value1"), "n": .number(-1.25)],
                            time: SchemaFixture.time)
        #expect(SchemaFixture.keys(event) == ["name", "properties", "time"])
        SchemaFixture.expectRoundTrip(event)
        SchemaFixture.expectRoundTrip(MAEvent(name: nil))
        let counts = MessageCounts(received: 1, displayed: 2, opened: 3, inappShow: 4, inappClick: 5, voipReceived: 6)
        #expect(SchemaFixture.keys(counts) == [
            "received", "displayed", "opened", "inapp_show", "inapp_click", "voip_received", "sent", "failed",
        ])
        SchemaFixture.expectRoundTrip(counts)
        #expect(SchemaFixture.keys(StatsBucket(start: SchemaFixture.time, count: 1)) == ["start", "count"])
        #expect(StatsKind.allCases.map(\.rawValue) == [
            "received", "displayed", "opened", "inapp_show", "inapp_click", "voip_received", "page_enter", "page_leave",
        ])
        #expect(BucketSize.allCases.map(\.rawValue) == ["hour", "day"])
        for kind in StatsKind.allCases {
            SchemaFixture.expectRoundTrip(StatsReport(appKey: "a1", registrationID: "r1", kind: kind))
        }
    }
}
