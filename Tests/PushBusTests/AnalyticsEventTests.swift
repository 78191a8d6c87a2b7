import Foundation
import JSON
import Runtime
import Schema
import Testing
import WireTime
@testable import AnalyticsKit

/// `ma.events`, sessions and `stats.events` on a temporary database.
@Suite("analytics events and sessions")
struct AnalyticsEventTests {
    let ma: AnalyticsHarness
    var euid: String { ma.euid }

    init() throws { ma = try AnalyticsHarness() }

    /// Sends events, each `(name, time)`, as one batch.
    @discardableResult
    func send(_ events: [(String, String)], to euid: String? = nil, ma harness: AnalyticsHarness? = nil) -> JSONValue {
        let harness = harness ?? ma
        let list = events.map { "{\"name\":\"\($0.0)\",\"time\":\"\($0.1)\"}" }.joined(separator: ",")
        return harness.ma("ma.events", euid ?? self.euid, "{\"events\":[\(list)]}")
    }

    func stats(_ payload: String, ma harness: AnalyticsHarness? = nil) -> JSONValue {
        (harness ?? ma).call("stats.events", "{\"app_key\":\"app1\",\(payload)}")
    }

    /// The counts of the buckets of a `stats.events` reply.
    func counts(_ reply: JSONValue) -> [Int] { numbers(reply["buckets"], "count") }

    /// The number `field` of each object in a JSON array.
    func numbers(_ array: JSONValue?, _ field: String) -> [Int] {
        guard case .array(let items)? = array else { return [] }
        return items.compactMap { $0[field]?.number.map { Int($0) } }
    }

    func sessions(_ harness: AnalyticsHarness? = nil, day: String = "2025-03-01") -> Int {
        counts(stats("\"from\":\"\(day)T00:00:00Z\",\"to\":\"\(day)T23:59:59Z\",\"bucket\":\"day\",\"name\":\"$session\"",
                     ma: harness)).reduce(0, +)
    }

    // MARK: ma.events

    @Test func aBatchIsStoredWithItsUTMProperties() throws {
        let result = ma.ma("ma.events", euid, """
            {"events":[
               {"name":"sndefineevent2","properties":{"key1":"value1","key2":"value2"},"time":"2025-03-01T10:00:00Z"},
               {"name":"purchase","properties":{"amount":9.99}}],
             "utm":{"utm_source":"newsletter","utm_campaign":"spring"}}
            """)
        #expect(result == json(#"{"code":0,"accepted":2}"#))
        let rows = try ma.handler.storage.store.read { db in try db.rows("SELECT name, time, properties, utm FROM events ORDER BY id") }
        #expect(rows.count == 2)
        #expect(rows.first?[0].string == "sndefineevent2")
        #expect(rows.first?[1].double == RFC3339.seconds(from: "2025-03-01T10:00:00Z"))
        #expect(rows.first?[2].string.map(json) == json(#"{"key1":"value1","key2":"value2"}"#))
        #expect(rows.last?[1].double == ma.clock.now, "an event without time happened now")
        #expect(rows.allSatisfy { $0[3].string.map(json) == json(#"{"utm_source":"newsletter","utm_campaign":"spring"}"#) })
    }

    @Test func badEventsAreRefusedOneByOne() {
        let result = ma.ma("ma.events", euid, """
            {"events":[{"name":"ok"},{"properties":{}},{"name":"$session"},{"name":"late","time":"yesterday"},
                       {"name":"shifted","time":"2025-03-01T18:00:00+08:00"},{"name":"x","properties":{"":1}}]}
            """)
        #expect(result["accepted"] == .number(2))
        #expect(numbers(result["rejected"], "index") == [1, 2, 3, 5])
        #expect(numbers(result["rejected"], "code") == [6001, 6017, 6017, 6017])
        #expect(counts(stats(#""from":"2025-03-01T10:00:00Z","to":"2025-03-01T11:00:00Z","bucket":"hour","name":"shifted""#)) == [1],
                "an offset is honoured: 18:00+08:00 is 10:00Z")
    }

    @Test func aBatchHasAShape() {
        let many = (0..<501).map { _ in #"{"name":"e"}"# }.joined(separator: ",")
        #expect(ma.ma("ma.events", euid, "{\"events\":[\(many)]}").code == 6017, "at most 500 (the SDK's largest flush)")
        let five100 = (0..<500).map { _ in #"{"name":"e"}"# }.joined(separator: ",")
        #expect(ma.ma("ma.events", euid, "{\"events\":[\(five100)]}")["accepted"] == .number(500))
        #expect(ma.ma("ma.events", euid, #"{"events":[]}"#).code == 6001)
        #expect(ma.ma("ma.events", euid).code == 6001)
        #expect(ma.ma("ma.events", euid, #"{"events":[{"name":"e"}],"utm":{"utm_color":"red"}}"#).code == 6017)
        #expect(ma.ma("ma.events", euid, #"{"events":{"name":"e"}}"#).code == 6017)
        #expect(ma.ma("ma.events", "0123456789abcdef01234567", #"{"events":[{"name":"e"}]}"#).code == -2)
    }

    // MARK: sessions

    @Test func thirtyMinutesOfInactivitySplitsASession() {
        send([("open", "2025-03-01T10:00:00Z"), ("tap", "2025-03-01T10:30:00Z")])
        #expect(sessions() == 1, "a gap of exactly 30 minutes stays in the session")
        send([("tap", "2025-03-01T11:00:00.001Z")])
        #expect(sessions() == 2, "a gap longer than 30 minutes starts a new one")
        send([("tap", "2025-03-01T11:10:00Z"), ("tap", "2025-03-01T15:00:00Z"), ("tap", "2025-03-01T15:01:00Z")])
        #expect(sessions() == 3, "one batch can hold several sessions")
    }

    @Test func sessionsBelongToOneUser() {
        send([("open", "2025-03-01T10:00:00Z")])
        send([("open", "2025-03-01T10:01:00Z")], to: ma.start("another-device"))
        #expect(sessions() == 2)
    }

    @Test func aLateBatchBridgesTwoSessions() throws {
        send([("open", "2025-03-01T10:00:00Z")])
        send([("open", "2025-03-01T11:00:00Z")])
        #expect(sessions() == 2)
        send([("cached", "2025-03-01T10:30:00Z")])
        #expect(sessions() == 1, "an offline-cached event fills the gap")
        let stored = try ma.handler.storage.store.read { db in try EventStore().allSessions(db, euid: euid) }
        #expect(stored.count == 1)
        #expect(stored.first?.events == 3)
        #expect(stored.first?.start == RFC3339.seconds(from: "2025-03-01T10:00:00Z"))
        #expect(stored.first?.end == RFC3339.seconds(from: "2025-03-01T11:00:00Z"))
    }

    @Test func theTimeoutIsAPerAppSetting() throws {
        let short = try AnalyticsHarness(settings: AnalyticsSettings { $0.sessionTimeout = 1800; $0.appSessionTimeouts = ["app1": 60] })
        let euid = short.start()
        send([("a", "2025-03-01T10:00:00Z"), ("b", "2025-03-01T10:01:00Z"), ("c", "2025-03-01T10:02:01Z")], to: euid, ma: short)
        #expect(sessions(short) == 2, "app1 splits after 60 s")
        let other = short.start("d", app: "app2")
        let reply = short.ma("ma.events", other, #"{"events":[{"name":"a"}]}"#)
        #expect(reply.code == -2, "the EUID belongs to app2")
        let events = #"{"app_key":"app2","euid":"\#(other)","events":[{"name":"a","time":"2025-03-01T10:00:00Z"},{"name":"b","time":"2025-03-01T10:20:00Z"}]}"#
        #expect(short.call("ma.events", events)["accepted"] == .number(2))
        let app2 = short.call("stats.events", #"{"app_key":"app2","from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z","bucket":"day","name":"$session"}"#)
        #expect(counts(app2) == [1], "other apps keep the default 30 minutes")
    }

    @Test("a batch's session_timeout (the SDK's setNoActiveSessionEndDurationTime) cuts its events instead of the app's; out of range is 6017")
    func theSDKSessionTimeoutCutsItsBatch() {
        let events = #"{"events":[{"name":"a","time":"2025-03-01T10:00:00Z"},{"name":"b","time":"2025-03-01T10:01:00Z"}],"session_timeout":50}"#
        #expect(ma.ma("ma.events", euid, events)["accepted"] == .number(2))
        #expect(sessions() == 2, "a minute apart, 50 s allowed")
        for bad in ["0", "86401", "\"60\""] {
            let reply = ma.ma("ma.events", euid, #"{"events":[{"name":"a"}],"session_timeout":\#(bad)}"#)
            #expect(reply.code == 6017, "\(bad): \(reply)")
        }
    }

    @Test func runsCutWhereTheGapIsLongerThanTheTimeout() {
        #expect(SessionTracker.runs([], timeout: 10).isEmpty)
        #expect(SessionTracker.runs([30, 0, 10, 20.5, 5], timeout: 10) == [
            SessionTracker.Run(start: 0, end: 10, count: 3), SessionTracker.Run(start: 20.5, end: 30, count: 2),
        ])
        #expect(SessionTracker.runs([0, 10, 20.001], timeout: 10) == [
            SessionTracker.Run(start: 0, end: 10, count: 2), SessionTracker.Run(start: 20.001, end: 20.001, count: 1),
        ], "a gap of exactly the timeout stays in the run")
    }

    // MARK: stats.events

    @Test func countsByHourAndDay() {
        send([("purchase", "2025-03-01T10:05:00Z"), ("browse", "2025-03-01T10:55:00Z"), ("purchase", "2025-03-01T12:10:00Z"),
              ("purchase", "2025-03-02T00:00:00Z")])
        let hourly = stats(#""from":"2025-03-01T10:00:00Z","to":"2025-03-01T13:00:00Z","bucket":"hour""#)
        #expect(hourly == json("""
            {"code":0,"buckets":[{"start":"2025-03-01T10:00:00Z","count":2},{"start":"2025-03-01T11:00:00Z","count":0},
                                 {"start":"2025-03-01T12:00:00Z","count":1}]}
            """))
        #expect(counts(stats(#""from":"2025-03-01T00:00:00Z","to":"2025-03-03T00:00:00Z","bucket":"day""#)) == [3, 1])
        #expect(counts(stats(#""from":"2025-03-01T00:00:00Z","to":"2025-03-03T00:00:00Z","bucket":"day","name":"purchase""#)) == [2, 1])
        #expect(counts(stats(#""from":"2025-03-01T00:00:00Z","to":"2025-03-03T00:00:00Z","bucket":"day","name":"nothing""#)) == [0, 0])
    }

    @Test func theWindowIsWidenedToWholeBuckets() {
        send([("e", "2025-03-01T10:05:00Z"), ("e", "2025-03-01T12:59:59Z")])
        let reply = stats(#""from":"2025-03-01T10:30:00Z","to":"2025-03-01T12:15:00Z","bucket":"hour""#)
        #expect(counts(reply) == [1, 0, 1])
        guard case .array(let buckets)? = reply["buckets"] else { Issue.record("no buckets"); return }
        #expect(buckets.first?["start"] == "2025-03-01T10:00:00Z".json)
    }

    @Test func statsEventsChecksItsWindow() {
        let cases: [(String, Int)] = [
            (#""to":"2025-03-02T00:00:00Z","bucket":"day""#, 6001),
            (#""from":"2025-03-01T00:00:00Z","bucket":"day""#, 6001),
            (#""from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z""#, 6001),
            (#""from":"March 1","to":"2025-03-02T00:00:00Z","bucket":"day""#, 6017),
            (#""from":"2025-03-02T00:00:00Z","to":"2025-03-01T00:00:00Z","bucket":"day""#, 6017),
            (#""from":"2025-03-01T00:00:00Z","to":"2025-03-01T00:00:00Z","bucket":"hour""#, 6017),
            (#""from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z","bucket":"week""#, 6017),
            (#""from":"2020-01-01T00:00:00Z","to":"2025-01-01T00:00:00Z","bucket":"hour""#, 6017),
            (#""from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z","bucket":"day","name":"""#, 6017),
        ]
        for (payload, code) in cases { #expect(stats(payload).code == code, "\(payload)") }
        #expect(counts(stats(#""from":"2000-01-01T00:00:00Z","to":"2025-01-01T00:00:00Z","bucket":"day""#)).count == 9132)
        #expect(ma.call("stats.events", #"{"from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z","bucket":"day"}"#).code == 1005)
    }

    // MARK: RFC 3339

    @Test func timestampsParseAsFoundationDoes() {
        for text in ["2025-03-01T10:00:00Z", "2025-03-01T10:00:00.250Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59+08:00",
                     "2025-12-31T23:59:59.999-05:30", "2000-03-01t00:00:00z"] {
            let expected = foundationSeconds(text.uppercased())
            #expect(expected != nil)
            #expect(abs((RFC3339.seconds(from: text) ?? -1) - (expected ?? 0)) < 0.0005, "\(text)")
        }
        for text in ["", "2025-03-01", "2025-03-01T10:00:00", "2025-02-29T00:00:00Z", "2025-13-01T00:00:00Z",
                     "2025-03-01T24:00:00Z", "2025-03-01T10:00:00.Z", "2025-03-01T10:00:00Zjunk", "25-03-01T10:00:00Z",
                     "2025-03-01T10:00:00+0800"] {
            #expect(RFC3339.seconds(from: text) == nil, "\(text)")
        }
    }
}
