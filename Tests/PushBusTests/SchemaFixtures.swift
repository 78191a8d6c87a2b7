import Foundation
import Testing
import Schema

/// Helpers the Schema*Tests share: codec round trips, encoded key names and decoding errors.
enum SchemaFixture {
    static let seq = 42
    static let time = "2025-03-01T08:00:00Z"

    // Sample values with every field set.
    static let device = Device(
        registrationID: "1a0018970a8b2c3d", appKey: "app_7f3a", platform: "ios", deviceID: "idfv-1",
        apnsToken: "abcd01", apnsProduction: true, sdkVersion: "5.2.0", voipToken: "ef02", language: "zh_Hans",
        timezone: "Asia/Shanghai", mobile: "+8613800000000",
        liveActivityStartTokens: ["DeliveryAttributes": "aa11"], liveActivityTokens: ["order-1": "bb22"],
        createdAt: "2025-03-01T08:00:00Z", updatedAt: "2025-03-01T08:05:00Z")
    static let content = LocalContent(
        title: "Test Notifications", subtitle: "2016", body: "This is a test code", badge: 1, sound: "default",
        category: "Custom Category Name",
        userInfo: ["order": .object(["id": .number(17), "items": .array([.string("tea"), .null])]), "vip": .bool(true)])
    static let pending = LocalRequest(
        identifier: "weekly", content: content,
        trigger: LocalTrigger(dateComponents: CalendarComponents(weekday: 2, hour: 8), repeats: true,
                              timezone: "Asia/Shanghai"),
        nextFireAt: "2025-03-03T00:00:00Z")
    static let delivered = LocalNotification(
        identifier: "once", content: content, trigger: LocalTrigger(fireDate: "2025-03-01T08:00:05Z"),
        firedAt: "2025-03-01T08:00:05Z")
    static let user = MAUserID(userID: .string("member_10001"), anonymousID: .string("anonymous_10001"),
                               email: .string("member_10001@example.com"), phone: .string("+8613800000000"))
    static let contacts = MAUserContacts(email: "a@example.com", mobilePhone: "13800000000", landlinePhone: "",
                                         whatsappPhone: "+6580000000")

    /// `value` through `WireCodec.encode` and back through `WireCodec.decode`.
    static func roundTrip<T: Codable>(_ value: T) throws(CommandError) -> T {
        try WireCodec.decode(T.self, from: WireCodec.encode(value))
    }

    /// The encoded JSON text, keys sorted, as it goes on the wire.
    static func json<T: Encodable>(_ value: T) -> String {
        String(decoding: WireCodec.encode(value), as: UTF8.self)
    }

    /// The top-level key names of the encoded object.
    static func keys<T: Encodable>(_ value: T) -> Set<String> {
        let object = try? JSONSerialization.jsonObject(with: WireCodec.encode(value)) as? [String: Any]
        return Set(object?.keys.map { $0 } ?? [])
    }

    /// The error `WireCodec.decode` throws for `text`, or nil when it decodes.
    static func error<T: Decodable>(_ type: T.Type, _ text: String) -> CommandError? {
        error(type, Data(text.utf8))
    }

    static func error<T: Decodable>(_ type: T.Type, _ data: Data) -> CommandError? {
        do {
            _ = try WireCodec.decode(type, from: data)
            return nil
        } catch {
            return error
        }
    }

    /// Expects `value` to come back equal from the codec.
    static func expectRoundTrip<T: Codable & Equatable>(
        _ value: T, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let decoded = try roundTrip(value)
            #expect(decoded == value, "\(T.self) came back different", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(T.self) did not decode: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Expects a request payload to round-trip alone and in an `Envelope` with `seq`, and to encode
    /// exactly the catalog's `keys` (plus `seq` in the envelope).
    static func expectPayload<T: Codable & Equatable & Sendable>(
        _ value: T, keys expected: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectRoundTrip(value, sourceLocation: sourceLocation)
        expectRoundTrip(Envelope(value, seq: seq), sourceLocation: sourceLocation)
        #expect(keys(value) == expected, "\(T.self) keys", sourceLocation: sourceLocation)
        #expect(keys(Envelope(value, seq: seq)) == expected.union(["seq"]), "\(T.self) envelope keys",
                sourceLocation: sourceLocation)
    }

    /// Expects a reply body to round-trip alone and in a success `Reply` with `seq`, and to encode exactly
    /// the catalog's `keys` (plus `code` and `seq` in the reply).
    static func expectReply<T: Codable & Equatable & Sendable>(
        _ value: T, keys expected: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectRoundTrip(value, sourceLocation: sourceLocation)
        expectRoundTrip(Reply(value, seq: seq), sourceLocation: sourceLocation)
        #expect(keys(value) == expected, "\(T.self) keys", sourceLocation: sourceLocation)
        #expect(keys(Reply(value, seq: seq)) == expected.union(["code", "seq"]), "\(T.self) reply keys",
                sourceLocation: sourceLocation)
    }

    /// Expects an event body to round-trip alone and in an `Event`, and to encode exactly `keys`
    /// (plus the event's own `publisher`, `seq` and `time`).
    static func expectEvent<B: EventBody>(
        _ body: B, keys expected: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let event = Event(publisher: "\(B.topic.rawValue.prefix(while: { $0 != "." }))-0", sequence: 7,
                          time: time, body: body)
        expectRoundTrip(body, sourceLocation: sourceLocation)
        expectRoundTrip(event, sourceLocation: sourceLocation)
        #expect(keys(body) == expected, "\(B.self) keys", sourceLocation: sourceLocation)
        #expect(keys(event) == expected.union(["publisher", "seq", "time"]), "\(B.self) event keys",
                sourceLocation: sourceLocation)
    }
}

/// A frame that must not decode, with the type it is decoded as.
struct SchemaBadFrame: Sendable, CustomTestStringConvertible {
    let label: String
    let data: Data
    let decode: @Sendable (Data) -> CommandError?

    init<T: Decodable & SendableMetatype>(_ label: String, _ type: T.Type, _ text: String) {
        self.init(label, type, Data(text.utf8))
    }

    init<T: Decodable & SendableMetatype>(_ label: String, _ type: T.Type, _ data: Data) {
        self.label = label
        self.data = data
        self.decode = { SchemaFixture.error(T.self, $0) }
    }

    var error: CommandError? { decode(data) }
    var testDescription: String { label }
}
