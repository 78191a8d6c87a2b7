import Bus
import Foundation
import JSON
import Schema
import Testing

/// The types that read and write their own fields (`FieldReadable`, `FieldWritable`) against their
/// Codable conformance, over the same documents and values: the fast path gives what `init(from:)`
/// gives whenever it gives anything, reads the plain payloads requests carry, and writes the bytes
/// `JSONTreeEncoder` writes.
@Suite("Field coding")
struct FieldCodingTests {
    // MARK: reading

    /// Values for one field: every JSON kind, and the edges of strings, lists and integers.
    static let fieldValues: [String?] = [
        nil, "null", #""""#, #""a-b_c""#, #""AA:bb/cc""#, "\"\(String(repeating: "x", count: 300))\"", #""with \"escape\"""#,
        #""\u00e9""#, "\"é\"", "0", "-7", "1.5", "1e3", "true", "false", "[]", #"["x"]"#, #"["x","y","x"]"#, #"["x",null]"#,
        #"["x",3]"#, #"[["x"]]"#, #"{"a":"b"}"#, "{}", "9223372036854775807", "9223372036854775808", "-0",
    ]

    /// Documents of the fields `plain` (each key with a value of its type): each key with each value,
    /// a key given twice, unknown keys, spacing, a `seq` of each kind, and random mixes.
    static func documents(_ plain: [(String, String?)]) -> [String] {
        let keys = plain.map(\.0)
        func object(_ members: [(String, String?)]) -> String {
            "{" + members.compactMap { key, value in value.map { "\"\(key)\":\($0)" } }.joined(separator: ",") + "}"
        }
        var documents = ["{}", object(plain), " \n{ " + object(plain).dropFirst().dropLast() + " }\t", "[]", "{", "nope", ""]
        for key in keys + ["seq"] {
            for value in fieldValues {
                documents.append(object(plain.filter { $0.0 != key } + [(key, value)]))
                documents.append(object([(key, value)] + plain + [("other", #"{"deep":[1,{"x":null}]}"#)]))
            }
        }
        for key in keys {
            documents.append(object(plain + [(key, #""again""#)]))
            documents.append(object([(key, "null")] + plain))
            documents.append(object([(key, "3")] + plain))
        }
        var random = TestRandom()
        for _ in 0..<400 {
            let members = (keys + ["seq", "x"]).shuffled(using: &random).map { ($0, fieldValues.randomElement(using: &random)!) }
            documents.append(object(members))
        }
        return documents
    }

    /// Where `WireCodec.read` gives a value, `decode(Envelope<T>)` gives the same value and `seq`.
    func readsAsDecoded<T: FieldReadable & Codable & Sendable & Equatable>(_ type: T.Type, _ plain: [(String, String?)]) -> Int {
        var read = 0
        for document in Self.documents(plain) {
            let data = Data(document.utf8)
            guard let fast = WireCodec.read(type, from: data) else { continue }
            read += 1
            do {
                let decoded = try WireCodec.decode(Envelope<T>.self, from: data)
                #expect(fast.value == decoded.payload && fast.seq == decoded.seq, "\(T.self) \(document): \(fast) vs \(decoded)")
            } catch {
                Issue.record("\(T.self) \(document): read \(fast), but decoding fails: \(error)")
            }
        }
        return read
    }

    @Test func payloadsReadThemselvesAsTheyDecode() {
        let device: [(String, String?)] = [("app_key", #""k""#), ("registration_id", #""r""#)]
        let counts = [
            readsAsDecoded(TagsChange.self, device + [("tags", #"["a","b"]"#)]),
            readsAsDecoded(DeviceRef.self, device),
            readsAsDecoded(TagCheck.self, device + [("tag", #""t""#)]),
            readsAsDecoded(AliasSet.self, device + [("alias", #""a""#)]),
            readsAsDecoded(DeviceRegister.self, [("app_key", #""k""#), ("platform", #""ios""#), ("device_id", #""d""#),
                                                 ("apns_token", #""00ff""#), ("apns_production", "true"), ("sdk_version", #""5.0""#)]),
            readsAsDecoded(DeviceRegister.self, device + [("platform", #""android""#), ("apns_production", "false")]),
        ]
        // Each type read a good share of the documents itself: the fast path runs.
        #expect(counts.allSatisfy { $0 > 40 }, "\(counts)")
    }

    /// An event on the bus: where `Event` reads itself the decoder gives the same event, and
    /// `FieldReader.decode` gives the decoder's verdict on every document; the header a `BusEvent`
    /// reads (publisher, seq, epoch) is the decoder's, or none where the decoder fails.
    @Test func eventsReadThemselvesAsTheyDecode() {
        struct Header: Decodable, Equatable {
            let publisher: String
            let seq: Int64
            let epoch: String?
        }
        let plain: [(String, String?)] = [("app_key", #""k""#), ("registration_id", #""r""#), ("platform", #""ios""#),
                                          ("publisher", #""registration""#), ("epoch", #""e1""#), ("time", #""2026-12-03T00:00:00Z""#)]
        var read = 0
        for document in Self.documents(plain + [("seq", "7")]) {
            let data = Data(document.utf8)
            let decoded = try? JSONTreeDecoder().decode(Event<DeviceRegisteredEvent>.self, from: data)
            if let fast = FieldReader.read(data, { fields throws(FieldReader.Decline) in try Event<DeviceRegisteredEvent>(fields: fields) }) {
                read += 1
                #expect(fast == decoded, "\(document)")
            }
            #expect((try? FieldReader.decode(Event<DeviceRegisteredEvent>.self, from: data)) == decoded, "\(document)")
            let header = try? JSONTreeDecoder().decode(Header.self, from: data)
            let event = BusEvent(topic: Topic.deviceRegistered.rawValue, data: data)
            #expect(event.publisher == header?.publisher && event.sequence == header?.seq && event.epoch == header?.epoch, "\(document)")
        }
        #expect(read > 40, "the fast path runs (\(read) documents read)")
    }

    @Test func plainRequestsAreReadInPlaceAndOthersAreLeftToTheDecoder() throws {
        let plain = Data(#"{"app_key":"k","registration_id":"r","tags":["a","b"],"seq":12,"ts":1700000000,"nonce":"00ff"}"#.utf8)
        let read = try #require(WireCodec.read(TagsChange.self, from: plain))
        #expect(read.value == TagsChange(appKey: "k", registrationID: "r", tags: ["a", "b"]) && read.seq == 12)
        for declined in [#"{"app_key":"k\u0041"}"#, #"{"tags":"a"}"#, #"{"tags":[null]}"#, #"{"seq":1.0}"#, #"{"seq":"1"}"#, "[1]"] {
            #expect(WireCodec.read(TagsChange.self, from: Data(declined.utf8)) == nil, "\(declined)")
        }
        let oversize = Data(("{\"app_key\":\"" + String(repeating: "k", count: WireCodec.maxPayloadBytes) + "\"}").utf8)
        #expect(WireCodec.read(DeviceRef.self, from: oversize) == nil)
    }

    // MARK: writing

    static func text<R: RandomNumberGenerator>(_ random: inout R) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\u{01}", "\u{1F}", "\u{7F}", "é", "日本", "🎉", "_", "-", "\u{2028}"]
        return (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func texts<R: RandomNumberGenerator>(_ random: inout R) -> [String] {
        (0..<Int.random(in: 0...4, using: &random)).map { _ in text(&random) }
    }

    static func maybe<T, R: RandomNumberGenerator>(_ value: T, _ random: inout R) -> T? { Bool.random(using: &random) ? value : nil }

    /// `WireCodec.encode` (which writes a `FieldWritable` itself) gives `JSONTreeEncoder`'s bytes.
    func writesAsEncoded<T: FieldWritable>(_ value: T) throws {
        let fast = WireCodec.encode(value)
        let encoded = try JSONTreeEncoder().encode(value)
        #expect(fast == encoded, "\(value): \(String(decoding: fast, as: UTF8.self)) vs \(String(decoding: encoded, as: UTF8.self))")
    }

    @Test func repliesAndEventsWriteThemselvesAsTheyEncode() throws {
        var random = TestRandom()
        for _ in 0..<300 {
            try writesAsEncoded(TagsReply(tags: Self.maybe(Self.texts(&random), &random)))
            try writesAsEncoded(AliasReply(alias: Self.maybe(Self.text(&random), &random)))
            try writesAsEncoded(TagBinding(tag: Self.text(&random), isBind: .random(using: &random)))
            let tags = TagsChangedEvent(appKey: Self.text(&random), registrationID: Self.text(&random),
                                        added: Self.texts(&random), removed: Self.texts(&random))
            let alias = AliasChangedEvent(appKey: Self.text(&random), registrationID: Self.text(&random),
                                          alias: Self.maybe(Self.text(&random), &random), previous: Self.maybe(Self.text(&random), &random))
            try writesAsEncoded(tags)
            try writesAsEncoded(alias)
            let sequence = Int64.random(in: .min ... .max, using: &random)
            try writesAsEncoded(Event(publisher: Self.text(&random), sequence: sequence, epoch: Self.maybe(Self.text(&random), &random),
                                      time: Self.text(&random), body: tags))
            try writesAsEncoded(Event(publisher: "tagging", sequence: 1, time: "t", body: alias))
            try writesAsEncoded(DeviceRegistered(registrationID: Self.text(&random), isNew: .random(using: &random),
                                                 deviceSecret: Self.maybe(Self.text(&random), &random)))
            let registered = DeviceRegisteredEvent(appKey: Self.text(&random), registrationID: Self.text(&random), platform: Self.text(&random))
            try writesAsEncoded(registered)
            try writesAsEncoded(Event(publisher: "registration", sequence: sequence, time: Self.text(&random), body: registered))
            let notifications = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                ApnsNotification(id: Self.text(&random), token: Self.text(&random), production: .random(using: &random), topic: Self.text(&random),
                                 pushType: Self.text(&random), priority: Int.random(in: 1...10, using: &random),
                                 expiration: Self.maybe(Int.random(in: 0...2_000_000_000, using: &random), &random),
                                 collapseID: Self.maybe(Self.text(&random), &random), payload: Self.text(&random),
                                 apnsID: Self.maybe(Self.text(&random), &random))
            }
            var info = try WireCodec.decode([String: JSONValue].self, from: Data(#"{"n":2.50,"o":{"z":null,"a":[true,1e1]},"s":"é"}"#.utf8))
            info[Self.text(&random)] = .string(Self.text(&random))
            let content = LocalContent(title: Self.maybe(Self.text(&random), &random), subtitle: Self.maybe(Self.text(&random), &random),
                                       body: Self.maybe(Self.text(&random), &random), badge: Self.maybe(Int.random(in: 0...99_999, using: &random), &random),
                                       sound: Self.maybe(Self.text(&random), &random), category: Self.maybe(Self.text(&random), &random),
                                       userInfo: Self.maybe(info, &random))
            let fired = LocalFiredEvent(appKey: Self.text(&random), registrationID: Self.text(&random), identifier: Self.text(&random),
                                        content: content, firedAt: Self.text(&random), nextFireAt: Self.maybe(Self.text(&random), &random))
            try writesAsEncoded(fired)
            let firedEvent = Event(publisher: "scheduler", sequence: sequence, epoch: Self.maybe(Self.text(&random), &random),
                                   time: Self.text(&random), body: fired)
            try writesAsEncoded(firedEvent)
            // push reads it from its tree: as the decoder reads it.
            let bytes = WireCodec.encode(firedEvent)
            let read = try Event<LocalFiredEvent>.read(bytes)
            let decoded = try JSONTreeDecoder().decode(Event<LocalFiredEvent>.self, from: bytes)
            #expect(read.body == decoded.body)
            #expect(read.publisher == decoded.publisher && read.sequence == decoded.sequence)
            #expect(read.epoch == decoded.epoch && read.time == decoded.time)
            let delivered = PushDeliveredEvent(appKey: Self.text(&random), msgID: Self.text(&random), sent: Int.random(in: 0...1000, using: &random),
                                               failed: Self.maybe([Self.text(&random): 3, "BadDeviceToken": 1], &random) ?? [:])
            try writesAsEncoded(delivered)
            try writesAsEncoded(Event(publisher: "push", sequence: sequence, time: Self.text(&random), body: delivered))
            try writesAsEncoded(ApnsSend(appKey: Self.maybe(Self.text(&random), &random),
                                         credentials: Self.maybe(ApnsKey(teamID: Self.text(&random), keyID: Self.text(&random), p8: Self.text(&random)), &random),
                                         notifications: Self.maybe(notifications, &random)))
        }
    }

    /// Batches whose notifications share some fields and not others (as a broadcast's do, with a
    /// badge here and there): written compact the same by both writers, and read back whole.
    @Test func apnsSendWritesWhatItsNotificationsShareOnceAndReadsThemBackWhole() throws {
        var random = TestRandom()
        for _ in 0..<300 {
            func pick<T>(_ shared: T, _ own: () -> T) -> T { Int.random(in: 0..<4, using: &random) == 0 ? own() : shared }
            let topic = Self.text(&random), pushType = Self.text(&random), payload = Self.text(&random), collapse = Self.maybe(Self.text(&random), &random)
            let expiration = Self.maybe(Int.random(in: 0...2_000_000_000, using: &random), &random)
            let notifications = (0..<Int.random(in: 1...6, using: &random)).map { index in
                ApnsNotification(id: "\(index)", token: Self.text(&random), production: pick(true) { .random(using: &random) },
                                 topic: pick(topic) { Self.text(&random) }, pushType: pick(pushType) { Self.text(&random) },
                                 priority: pick(10) { Int.random(in: 1...10, using: &random) },
                                 expiration: pick(expiration) { Self.maybe(Int.random(in: 0...9, using: &random), &random) },
                                 collapseID: pick(collapse) { Self.maybe(Self.text(&random), &random) }, payload: pick(payload) { Self.text(&random) },
                                 apnsID: Self.maybe(Self.text(&random), &random))
            }
            let send = ApnsSend(appKey: "app", credentials: ApnsKey(teamID: "t", keyID: "k", p8: "p"), notifications: notifications)
            try writesAsEncoded(send)
            let bytes = WireCodec.encode(send)
            #expect(try WireCodec.decode(ApnsSend.self, from: bytes) == send, "\(String(decoding: bytes, as: UTF8.self))")
        }
        // A broadcast's batch: its payload once, however many devices.
        let payload = #"{"aps":{"alert":"Hello"},"_j_msgid":"1000000001"}"#
        let many = (0..<100).map { ApnsNotification(id: "\($0)", token: "\($0)aa", production: true, topic: "com.example", pushType: "alert",
                                                    priority: 10, expiration: nil, collapseID: "1000000001", payload: payload) }
        let text = String(decoding: WireCodec.encode(ApnsSend(credentials: nil, notifications: many)), as: UTF8.self)
        #expect(text.components(separatedBy: "_j_msgid").count == 2)
        #expect(try WireCodec.decode(ApnsSend.self, from: Data(text.utf8)).notifications == many)
    }

    /// Two spellings of one text (canonically equivalent: equal to `==`) are two values on the wire:
    /// an item whose payload, topic or collapse id is the other spelling of `common`'s keeps its own bytes.
    @Test func anApnsSendItemKeepsItsOwnBytesWhereCommonIsAnotherSpellingOfTheSameText() throws {
        let spellings = [("K", "\u{212A}"), ("\u{E9}", "e\u{301}"), (";", "\u{37E}")]
        for (first, second) in spellings {
            #expect(first == second, "one text to ==")
            let notifications = [(first, "aa"), (second, "bb")].map { text, token in
                ApnsNotification(id: token, token: token, production: true, topic: "t" + text, pushType: "alert", priority: 10,
                                 expiration: nil, collapseID: "c" + text, payload: #"{"aps":{"alert":""# + text + #""}}"#)
            }
            let bytes = WireCodec.encode(ApnsSend(credentials: nil, notifications: notifications))
            #expect(bytes == (try JSONTreeEncoder().encode(ApnsSend(credentials: nil, notifications: notifications))))
            let read = try #require(try WireCodec.decode(ApnsSend.self, from: bytes).notifications)
            for (sent, got) in zip(notifications, read) {
                #expect(Array(got.payload.utf8) == Array(sent.payload.utf8), "\(got.payload) for \(sent.payload)")
                #expect(Array(got.topic.utf8) == Array(sent.topic.utf8))
                #expect(Array((got.collapseID ?? "").utf8) == Array((sent.collapseID ?? "").utf8))
            }
        }
    }

    /// An item's own value (a null included) before `common`'s; a field neither has is refused as before.
    @Test func anApnsSendItemsFieldsComeBeforeCommonsAndNullIsItsOwn() throws {
        let common = #""common":{"production":true,"topic":"t","push_type":"alert","priority":10,"expiration":5,"collapse_id":"c","payload":"{}"}"#
        let sent = try WireCodec.decode(ApnsSend.self, from: Data(("{" + common + #","notifications":["#
            + #"{"id":"1","token":"aa"},{"id":"2","token":"bb","expiration":null,"collapse_id":null,"priority":5}]}"#).utf8))
        let notifications = try #require(sent.notifications)
        #expect(notifications[0] == ApnsNotification(id: "1", token: "aa", production: true, topic: "t", pushType: "alert", priority: 10,
                                                     expiration: 5, collapseID: "c", payload: "{}"))
        #expect(notifications[1] == ApnsNotification(id: "2", token: "bb", production: true, topic: "t", pushType: "alert", priority: 5,
                                                     expiration: nil, collapseID: nil, payload: "{}"))
        func code(_ text: String) -> Int? {
            do { _ = try WireCodec.decode(ApnsSend.self, from: Data(text.utf8)); return nil } catch { return error.code.rawValue }
        }
        #expect(code(#"{"notifications":[{"id":"1","token":"aa"}]}"#) == 6001)
        #expect(code("{" + common.replacingOccurrences(of: #""priority":10"#, with: #""priority":"10""#) + #","notifications":[{"id":"1","token":"aa"}]}"#) == 6017)
        #expect(code(#"{"common":[1],"notifications":[]}"#) == 6017)
    }

    @Test func apnsAnswersWriteThemselvesAsTheyEncode() throws {
        var random = TestRandom()
        for _ in 0..<300 {
            let results = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                ApnsResult(id: Self.text(&random), status: Int.random(in: 0...599, using: &random), reason: Self.maybe(Self.text(&random), &random),
                           timestamp: Self.maybe(Double(Int.random(in: 0...2_000_000_000_000, using: &random)), &random),
                           retryAfter: Self.maybe(Double.random(in: 0...3600, using: &random), &random))
            }
            try writesAsEncoded(ApnsSent(results: results))
            let seq = Self.maybe(Int.random(in: 0...1_000_000, using: &random), &random)
            #expect(WireCodec.successReply(ApnsSent(results: results), seq: seq) == WireCodec.successReply(Opaque(body: ApnsSent(results: results)), seq: seq))
        }
    }

    @Test func aFiredEventReadFromItsTreeIsRefusedAsTheDecoderRefusesIt() {
        func code(_ text: String) -> Int? {
            do { _ = try Event<LocalFiredEvent>.read(Data(text.utf8)); return nil } catch { return error.code.rawValue }
        }
        let good = #"{"app_key":"a","registration_id":"r","identifier":"i","content":{"title":"t","badge":2,"user_info":{"k":[1]}},"#
            + #""fired_at":"2026-12-06T00:00:00Z","publisher":"scheduler","seq":7,"time":"t"}"#
        #expect(code(good) == nil)
        #expect(code(good.replacingOccurrences(of: #""seq":7"#, with: #""seq":"7""#)) == 6017)
        #expect(code(good.replacingOccurrences(of: #""identifier":"i","#, with: "")) == 6001)
        #expect(code(good.replacingOccurrences(of: #""badge":2"#, with: #""badge":"2""#)) == 6017)
        #expect(code(good.replacingOccurrences(of: #"{"k":[1]}"#, with: "[1]")) == 6017)
        #expect(code("[1]") == 6017)
        #expect(code("{") == 6017)
    }

    /// A body that only encodes, so `successReply` writes it through `encode(to:)`: the reference.
    struct Opaque: Encodable {
        let body: any Encodable
        func encode(to encoder: any Encoder) throws { try body.encode(to: encoder) }
    }

    @Test func successRepliesWriteTheBodyWithCodeAndSeqAsTheyEncode() {
        var random = TestRandom()
        for _ in 0..<200 {
            let seq = Self.maybe(Int.random(in: -1_000_000...1_000_000, using: &random), &random)
            let bodies: [any FieldWritable] = [TagsReply(tags: Self.maybe(Self.texts(&random), &random)),
                                               AliasReply(alias: Self.maybe(Self.text(&random), &random)),
                                               TagBinding(tag: Self.text(&random), isBind: .random(using: &random))]
            for body in bodies {
                let fast = WireCodec.successReply(body, seq: seq)
                let encoded = WireCodec.successReply(Opaque(body: body), seq: seq)
                #expect(fast == encoded, "\(String(decoding: fast, as: UTF8.self)) vs \(String(decoding: encoded, as: UTF8.self))")
            }
        }
    }

    /// A later member of the same key keeps its value, as a keyed container that encodes a key again.
    @Test func aKeyWrittenTwiceKeepsItsLastValue() {
        enum Key: String, CodingKey { case b, a, code }
        var fields = FieldWriter()
        fields.write("first", for: Key.b)
        fields.write(1, for: Key.code)
        fields.write(true, for: Key.a)
        fields.write("second", for: Key.b)
        #expect(String(decoding: fields.data(), as: UTF8.self) == #"{"a":true,"b":"second","code":1}"#)
    }

    /// Members given in their keys' order are written as they come; a key given again after them
    /// still keeps only its last value, and no member at all is `{}`.
    @Test func membersInKeyOrderAreTheObjectAsGiven() {
        enum Key: String, CodingKey { case a, b, code }
        var ordered = FieldWriter()
        ordered.write(true, for: Key.a)
        ordered.write("b", for: Key.b)
        ordered.write(7, for: Key.code)
        #expect(String(decoding: ordered.data(), as: UTF8.self) == #"{"a":true,"b":"b","code":7}"#)
        var again = FieldWriter()
        again.write(true, for: Key.a)
        again.write("first", for: Key.b)
        again.write("second", for: Key.b)
        #expect(String(decoding: again.data(), as: UTF8.self) == #"{"a":true,"b":"second"}"#)
        #expect(String(decoding: FieldWriter().data(), as: UTF8.self) == "{}")
    }

    /// Integers are written digit by digit: every width and sign reads back as the number written.
    @Test func integersAreWrittenAsTheirDecimalText() {
        enum Key: String, CodingKey { case n }
        func written(_ value: some BinaryInteger) -> String {
            var fields = FieldWriter()
            fields.write(value, for: Key.n)
            return String(decoding: fields.data(), as: UTF8.self)
        }
        for value in [0, 7, -7, 10, -10, 1_000_000, Int.max, Int.min] { #expect(written(value) == "{\"n\":\(value)}") }
        #expect(written(UInt64.max) == "{\"n\":18446744073709551615}")
        #expect(written(Int8.min) == "{\"n\":-128}")
    }
}
