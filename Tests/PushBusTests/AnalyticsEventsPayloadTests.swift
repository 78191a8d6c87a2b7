import Foundation
import JSON
import Schema
import Testing
import Worker
@testable import AnalyticsKit

/// `ma.events` payloads read straight from the wire's tree (`AnalyticsHandler.readEvents`) must get the
/// same answer as when they were decoded into `MAEvents` and each event's properties written from the
/// decoded dictionary: the same error, or the same events, refusals, stored text and `seq`.
@Suite("analytics ma.events payload reading")
struct AnalyticsEventsPayloadTests {
    let ma: AnalyticsHarness

    init() throws { ma = try AnalyticsHarness() }

    /// What the handler makes of a payload before it touches the database.
    struct Reading: Equatable, CustomStringConvertible {
        var failure: String?
        var events: [EventBatch.Checked] = []
        var rejected: [MARejectedEvent] = []
        var utm: String?
        var seq: Int?

        var description: String {
            failure ?? "\(events.map { "\($0.name)@\($0.time) \($0.properties ?? "-")" }) rejected \(rejected) utm \(utm ?? "-") seq \(seq.map(String.init) ?? "-")"
        }
    }

    /// The reading before: `MAEvents` decoded, properties (and UTM) written from the decoded dictionaries.
    func decodedReading(_ payload: Data) -> Reading {
        let request = Request(command: "ma.events", payload: payload)
        do throws(CommandError) {
            let decoded = try request.decode(MAEvents.self)
            var reading = try checked(EventsPayload(decoded), seq: request.seq)
            if reading.utm != nil, let utm = decoded.utm { reading.utm = String(decoding: WireCodec.encode(utm), as: UTF8.self) }
            let refused = Set(reading.rejected.map(\.index))
            let stored = (decoded.events ?? []).indices.filter { !refused.contains($0) }
            for (position, index) in stored.enumerated() {
                guard let properties = decoded.events?[index].properties, !properties.isEmpty else { continue }
                let old = reading.events[position]
                reading.events[position] = EventBatch.Checked(name: old.name, time: old.time,
                                                              properties: String(decoding: WireCodec.encode(properties), as: UTF8.self))
            }
            return reading
        } catch {
            return Reading(failure: "\(error.code.rawValue) \(error.message)")
        }
    }

    /// The reading now.
    func treeReading(_ payload: Data) -> Reading {
        let request = Request(command: "ma.events", payload: payload)
        do throws(CommandError) {
            return try checked(ma.handler.readEvents(request), seq: request.seq)
        } catch {
            return Reading(failure: "\(error.code.rawValue) \(error.message)")
        }
    }

    /// The checks `record` makes, in its order.
    func checked(_ payload: EventsPayload, seq: Int?) throws(CommandError) -> Reading {
        _ = try Validate.appKey(payload.appKey)
        _ = try AnalyticsHandler.euid(payload.euid)
        let batch = try EventBatch(payload, now: 1_700_000_000)
        return Reading(events: batch.events, rejected: batch.rejected, utm: batch.utm, seq: seq)
    }

    func same(_ payload: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        let before = decodedReading(payload)
        let now = treeReading(payload)
        #expect(now == before, "\(String(decoding: payload, as: UTF8.self).prefix(300))\n now: \(now)\n was: \(before)",
                sourceLocation: sourceLocation)
    }

    /// `events` (JSON text of the array's items) in a payload of the harness's app and EUID, plus `extra` members.
    func batch(_ events: String, _ extra: String = "") -> Data {
        Data(#"{"app_key":"app1","euid":"\#(ma.euid)","events":[\#(events)]\#(extra)}"#.utf8)
    }

    @Test func wellFormedBatches() {
        same(batch(#"{"name":"open","time":"2025-03-01T10:00:00Z","properties":{"amount":12.34,"sku":"sku-1"}},{"name":"tap"}"#,
                   #","utm":{"utm_source":"newsletter","utm_campaign":"spring"},"seq":7"#))
        same(batch(#"{"properties":{"z":1,"a":{"y":[1,{"b":2,"a":1}],"x":null},"m":[true,false,"s"]},"name":"e"}"#))
        same(batch(#"{"name":"e","properties":{}},{"name":"e","properties":null},{"name":"e","time":null}"#, #","utm":{},"seq":null"#))
        same(batch(#"{"name":"e","extra":[1,2,{"deep":{}}],"properties":{"k":"v"}}"#, #","cmd":"ma.events","other":{"a":[]}"#))
        same(batch(String(repeating: #"{"name":"e"},"#, count: 499) + #"{"name":"e"}"#))
        same(batch(#"{"name":"e"}"#, #","utm":{"utm_id":"1","utm_term":"a\"b\\","utm_content":"\u0001\/","utm_medium":"m","utm_campaign":"","utm_source":"é😀"}"#))
    }

    @Test func numbersAreStoredByTheirValue() {
        let numbers = ["0", "-0", "1.0", "1.50", "-0.0", "0.1", "1e2", "1E+2", "-1.5e-7", "123456789012345", "1234567890123456",
                       "9007199254740993", "99999999999999999999", "1e308", "5e-324", "0.00001", "2.5e15", "8999999999999999",
                       "9000000000000001", String(repeating: "9", count: 300), "3.141592653589793238462643383279"]
        for number in numbers {
            same(batch(#"{"name":"e","properties":{"n":\#(number),"list":[\#(number)],"o":{"n":\#(number)}}}"#))
        }
    }

    @Test func escapesAndUnicode() {
        same(batch(#"{"name":"\u0065vent","properties":{"url":"https:\/\/x.example\/a?b=c","q":"say \"hi\"\\","e":"\u00e9\ud83d\ude00","c":"\u0001\t\n"}}"#))
        same(batch(#"{"name":"e","properties":{"é中文😀":"é中文😀","\u00e9":1,"\u2028":"\u2028"}}"#))
        same(batch(#"{"name":"e","time":"2025-03-01T10:00:00\u005a"}"#, #","utm":{"utm_source":"news\/letter \u00e9"}"#))
        same(batch(#"{"name":"caf\u00e9"},{"name":"café"}"#))
        same(Data(#"{"app_key":"app1","euid":"\#(ma.euid)","events":[{"name":"e","properties":{"k":""#.utf8) + [0xC3, 0x28]
             + Data(#""}}]}"#.utf8))
        same(batch(#"{"name":"e","properties":{"k":"\ud800"}}"#))
    }

    /// `é` composed (U+00E9) and decomposed (e, U+0301) are one key of a decoded dictionary, not one
    /// byte string: the first is kept, wherever the other sorts, and only its length counts.
    @Test func namesEqualAsStringsAreOneName() {
        same(batch(#"{"name":"e","properties":{"e\u0301":1,"f":2,"\u00e9":3,"o":{"e\u0301":4,"\u00e9":5}}}"#))
        same(batch(#"{"name":"e","properties":{"\u00e9":1,"e\u0301":2}}"#))
        let long = String(repeating: "a", count: 126)
        same(batch(#"{"name":"e","properties":{"\#(long)\u00e9":1,"\#(long)e\u0301":2}}"#))
        same(batch(#"{"name":"e","properties":{"\#(long)e\u0301":1,"\#(long)\u00e9":2}}"#))
        same(batch(#"{"name":"e","properties":{"é中文":1,"z":2}}"#))
    }

    @Test func duplicateKeysReadTheFirst() {
        same(batch(#"{"name":"first","name":"second","properties":{"k":1,"k":2,"a":3},"time":"2025-03-01T10:00:00Z","time":"x"}"#))
        same(Data(#"{"app_key":"app1","euid":"\#(ma.euid)","events":[{"name":"a"}],"events":[{"name":"b"},{"name":"c"}]}"#.utf8))
        same(Data(#"{"app_key":"app1","euid":"\#(ma.euid)","euid":"someone-else","app_key":"app2","events":[{"name":"a"}]}"#.utf8))
        same(batch(#"{"name":"e"}"#, #","utm":{"utm_source":"a","utm_source":5}"#))
        same(batch(#"{"name":"e"}"#, #","utm":{"utm_source":"a","utm_source":"b"}"#))
        same(batch(#"{"name":"e"}"#, #","seq":1,"seq":"x""#))
        same(batch(#"{"name":"e","properties":{"k":{"x":1,"x":2},"k":3}}"#))
    }

    @Test func fieldsOfTheWrongTypeGetTheDecodersError() {
        for extra in [#","app_key":5"#, #","euid":null"#, #","euid":["x"]"#, #","utm":[]"#, #","utm":{"utm_source":5}"#,
                      #","utm":{"utm_source":null}"#, #","utm":"x""#, #","seq":"x""#, #","seq":1.5"#, #","seq":3.0"#,
                      #","seq":99999999999999999999"#] {
            same(Data(#"{"events":[{"name":"e"}]\#(extra),"app_key":"app1","euid":"\#(ma.euid)"}"#.utf8))
        }
        for events in [#"{"name":5}"#, #"{"name":"e","time":5}"#, #"{"name":"e","properties":[]}"#, #"{"name":"e","properties":"x"}"#,
                       "1", "null", #""e""#, "[]", #"{"name":"e"},{"name":null,"time":{}}"#] {
            same(batch(events))
        }
        for payload in [#"{"app_key":"app1","events":{"name":"e"}}"#, #"{"app_key":"app1","events":"x"}"#,
                        #"{"app_key":"app1","events":null}"#, #"{"app_key":"app1"}"#, "{}"] {
            same(Data(payload.utf8))
        }
    }

    @Test func malformedPayloads() {
        for payload in ["", " ", "[]", "null", #""x""#, "{", #"{"events":[{"name":"a"}"#, #"{"events":[{"name":"a",}]}"#,
                        #"{"events":[]} x"#, #"{"events":[{"name":"a","properties":{"k":01}}]}"#,
                        #"{"events":[{"name":"a","properties":{"k":1e309}}]}"#, #"{"events":[{"name":"a","properties":{"k":-}}]}"#,
                        #"{"events":[{"name":"a\u12"}]}"#, "{\"events\":[{\"name\":\"a\u{01}\"}]}"] {
            same(Data(payload.utf8))
        }
        same(batch(#"{"name":"e","properties":{"n":\#(String(repeating: "9", count: 400))}}"#))
        same(batch(#"{"name":"e","properties":{"deep":\#(String(repeating: "[", count: 600) + String(repeating: "]", count: 600))}}"#))
        same(batch(#"{"name":"e","properties":{"deep":\#(String(repeating: "[", count: 400) + String(repeating: "]", count: 400))}}"#))
        same(Data(String(repeating: " ", count: WireCodec.maxPayloadBytes + 1).utf8))
    }

    @Test func refusalsAreTheSame() {
        same(batch(#"{"name":"ok"},{"properties":{}},{"name":"$session"},{"name":"late","time":"yesterday"},"# +
                   #"{"name":"shifted","time":"2025-03-01T18:00:00+08:00"},{"name":"x","properties":{"":1}},"# +
                   #"{"name":"y","properties":{"\#(String(repeating: "k", count: 129))":1}},{"name":"\#(String(repeating: "n", count: 129))"},"# +
                   #"{"name":"z","properties":{"\#(String(repeating: "k", count: 128))":1}},{"name":"old","time":"1969-12-31T23:59:59Z"},"# +
                   #"{"name":"","properties":{"k":1}},{"name":"9lives"},{"name":"a b"}"#))
        same(batch(String(repeating: #"{"name":"e"},"#, count: 500) + #"{"name":"e"}"#))
        same(batch(""))
        same(batch(#"{"name":"e"}"#, #","utm":{"utm_color":"red","utm_source":"a"}"#))
        same(batch(#"{"name":"e"}"#, #","utm":{"utm_source":"\#(String(repeating: "s", count: 257))"}"#))
        same(Data(#"{"app_key":"bad key!","euid":"\#(ma.euid)","events":[{"name":"e"}]}"#.utf8))
        same(Data(#"{"app_key":"app1","euid":"not/an/euid","events":[{"name":"e"}]}"#.utf8))
    }

    /// Of several bad property names, the decoded dictionary named whichever its hashing put first; the
    /// tree names the first in the payload, one of those.
    @Test func severalBadPropertyNamesNameOne() {
        let long = String(repeating: "k", count: 129)
        let reading = treeReading(batch(#"{"name":"e","properties":{"ok":1,"\#(long)":2,"":3}}"#))
        #expect(reading.rejected.map(\.message) == ["event property name \(long.prefix(64)) must be 1..128 bytes"])
        let before = decodedReading(batch(#"{"name":"e","properties":{"ok":1,"\#(long)":2,"":3}}"#))
        #expect(before.rejected.count == 1)
        #expect(["event property name \(long.prefix(64)) must be 1..128 bytes", "event property name  must be 1..128 bytes"]
            .contains(before.rejected.first?.message ?? ""))
    }
}
