import Foundation
import JSON
import Schema
import Testing
@testable import SchedulerKit

/// `local.add`, `local.find`, `local.remove` and their codes, on a temporary database.
@Suite("scheduler handler: commands")
struct SchedulerHandlerTests {
    let harness: SchedulerHarness

    init() throws { harness = try SchedulerHarness() }

    @Test func addAnswersTheNextFireTimeAndFindListsTheRequest() throws {
        let added = harness.call("local.add", [
            "identifier": "sampleRequest".json, "seq": .number(9),
            "content": .object(["title": "Test Notifications".json, "subtitle": "2016".json,
                                "body": "This is a test code".json, "badge": .number(1),
                                "category": "Custom Category Name".json, "user_info": .object(["k": .number(1)])]),
            "trigger": TriggerJSON.interval(5),
        ])
        #expect(added.code == 0)
        #expect(added["identifier"] == "sampleRequest".json)
        #expect(added["next_fire_at"] == "2025-03-01T08:00:05Z".json)

        let found = harness.call("local.find", ["delivered": .bool(false)])
        let request = try #require(found["requests"]?.arrayValue?.first)
        #expect(request["content"]?["title"] == "Test Notifications".json)
        #expect(request["content"]?["user_info"]?["k"] == .number(1))
        #expect(request["trigger"]?["time_interval"] == .number(5))
        #expect(request["next_fire_at"] == "2025-03-01T08:00:05Z".json)
        #expect(found["notifications"] == nil, "only the list asked for")
    }

    @Test func everyTriggerKindIsAccepted() {
        #expect(harness.add("interval", TriggerJSON.interval(3600, repeats: true))["next_fire_at"] == "2025-03-01T09:00:00Z".json)
        #expect(harness.add("monday", TriggerJSON.calendar(["weekday": 2, "hour": 8], repeats: true, timezone: "Asia/Shanghai"))["next_fire_at"]
                == "2025-03-03T00:00:00Z".json)
        #expect(harness.add("date", TriggerJSON.fireDate("2025-03-01T16:00:05+08:00"))["next_fire_at"] == "2025-03-01T08:00:05Z".json)
        let region = harness.add("office", TriggerJSON.region(37.3354, -122.009201, radius: 2000))
        #expect(region.code == 0)
        #expect(region["next_fire_at"] == nil, "a region fires on location reports, not at a time")
        #expect(harness.found(false) == ["date", "interval", "monday", "office"], "soonest first, regions last")
    }

    @Test func theSameIdentifierUpdatesTheRequest() throws {
        _ = harness.add("reminder", TriggerJSON.interval(60), body: "first")
        let updated = harness.add("reminder", TriggerJSON.interval(120), body: "second")
        #expect(updated["next_fire_at"] == "2025-03-01T08:02:00Z".json)
        let requests = try #require(harness.call("local.find", ["delivered": .bool(false)])["requests"]?.arrayValue)
        #expect(requests.count == 1)
        #expect(requests.first?["content"]?["body"] == "second".json)

        harness.advance(60)
        try harness.tickUntilIdle()
        #expect(try harness.fired().isEmpty, "the replaced time does not fire")
        harness.advance(60)
        try harness.tickUntilIdle()
        #expect(try harness.fired().map(\.content.body) == ["second"])
    }

    @Test func aOneShotTimeInThePastIsRefused() {
        #expect(harness.add("past", TriggerJSON.fireDate("2025-03-01T07:59:59Z")).code == 6101)
        #expect(harness.add("now", TriggerJSON.fireDate("2025-03-01T08:00:00Z")).code == 6101)
        #expect(harness.add("gone", TriggerJSON.calendar(["year": 2024, "month": 12])).code == 6101)
        #expect(harness.add("never", TriggerJSON.calendar(["month": 4, "day": 31], repeats: true)).code == 6101)
        #expect(harness.found(false).isEmpty, "nothing refused is stored")
    }

    @Test func badInputGetsACode() {
        let content: JSONValue = .object(["body": "b".json])
        let trigger = TriggerJSON.interval(5)
        func code(_ payload: [String: JSONValue]) -> Int? { reply(harness.handler, "local.add", payload).code }
        let whole: [String: JSONValue] = ["app_key": "app1".json, "registration_id": "r1".json, "identifier": "i".json,
                                          "content": content, "trigger": trigger]
        #expect(code(whole) == 0)
        #expect(code(whole.filter { $0.key != "app_key" }) == 1005)
        #expect(code(whole.merging(["app_key": "bad key".json]) { $1 }) == 1008)
        #expect(code(whole.filter { $0.key != "registration_id" }) == 6001)
        #expect(code(whole.merging(["registration_id": "r 1".json]) { $1 }) == 6017)
        #expect(code(whole.filter { $0.key != "identifier" }) == 6001)
        #expect(code(whole.merging(["identifier": "".json]) { $1 }) == 6001)
        #expect(code(whole.merging(["identifier": String(repeating: "x", count: 257).json]) { $1 }) == 6017)
        #expect(code(whole.filter { $0.key != "content" }) == 6001)
        #expect(code(whole.merging(["content": .object(["badge": .number(-1)])]) { $1 }) == 6017)
        #expect(code(whole.merging(["content": .object(["body": String(repeating: "x", count: 5000).json])]) { $1 }) == 6017)
        #expect(code(whole.filter { $0.key != "trigger" }) == 6001)
        #expect(code(whole.merging(["trigger": .object([:])]) { $1 }) == 6001)
        #expect(code(whole.merging(["trigger": TriggerJSON.interval(30, repeats: true)]) { $1 }) == 6017)
        #expect(code(whole.merging(["trigger": "soon".json]) { $1 }) == 6017)
        #expect(code(whole.merging(["trigger": .object(["time_interval": .number(5), "timezone": "Moon/Base".json])]) { $1 }) == 6017)
        #expect(reply(harness.handler, "local.explode", whole).code == 6017)
        #expect(reply(harness.handler, "tags.add", whole).code == 6017, "another service's command")
        #expect(harness.call("location.report", ["latitude": .number(1)]).code == 6001)
        #expect(harness.call("location.report", ["latitude": .number(1), "longitude": .number(200)]).code == 6017)
        #expect(harness.call("local.find", ["identifiers": .array(Array(repeating: "i".json, count: 1001))]).code == 6017)
    }

    @Test func the65thPendingRequestIsRefusedNotDropped() {
        for index in 0..<64 { #expect(harness.add("n\(index)", TriggerJSON.interval(Double(60 + index))).code == 0) }
        let refused = harness.add("n64", TriggerJSON.interval(60))
        #expect(refused.code == 6102)
        #expect(refused["message"]?.string?.contains("64") == true)
        #expect(harness.found(false).count == 64)
        #expect(harness.add("n3", TriggerJSON.interval(999)).code == 0, "an update is not one more")
        #expect(harness.add("other", TriggerJSON.interval(60), device: "r2").code == 0, "the limit is per device")
        #expect(harness.call("local.remove", ["identifiers": .array(["n0".json]), "delivered": .bool(false)]).code == 0)
        #expect(harness.add("n64", TriggerJSON.interval(60)).code == 0)
    }

    @Test func theLimitIsASetting() throws {
        let small = try SchedulerHarness(settings: SchedulerSettings { $0.maxPending = 2 })
        #expect(small.add("a", TriggerJSON.interval(60)).code == 0)
        #expect(small.add("b", TriggerJSON.region(0, 0, radius: 10)).code == 0)
        #expect(small.add("c", TriggerJSON.interval(60)).code == 6102, "region requests count too")
    }

    @Test func findAndRemoveWorkOnEitherListByIdentifierOrAll() throws {
        for name in ["a", "b", "c"] { _ = harness.add(name, TriggerJSON.interval(10)) }
        _ = harness.add("later", TriggerJSON.interval(3600))
        harness.advance(10)
        try harness.tickUntilIdle()
        #expect(harness.found(false) == ["later"])
        #expect(harness.found(true) == ["a", "b", "c"])

        let some = harness.call("local.find", ["identifiers": .array(["b".json, "zzz".json]), "delivered": .bool(true)])
        #expect(some["notifications"]?.arrayValue?.compactMap { $0["identifier"]?.string } == ["b"])
        let both = harness.call("local.find", [:])
        #expect(both["requests"]?.arrayValue?.count == 1 && both["notifications"]?.arrayValue?.count == 3,
                "without delivered, both lists")

        let removedOne = harness.call("local.remove", ["identifiers": .array(["a".json]), "delivered": .bool(true)])
        #expect(removedOne["removed"] == .array(["a".json]))
        #expect(harness.call("local.remove", ["identifiers": .array(["later".json]), "delivered": .bool(true)])["removed"]
                == .array([]), "a pending identifier is not in the delivered list")
        #expect(harness.found(false) == ["later"])
        let removedAll = harness.call("local.remove", ["identifiers": .array([]), "delivered": .bool(true)])
        #expect(removedAll["removed"] == .array(["b".json, "c".json]))
        #expect(harness.found(true).isEmpty)
        #expect(harness.found(false) == ["later"], "removing delivered ones leaves pending ones")

        _ = harness.add("x", TriggerJSON.interval(5))
        harness.advance(5)
        try harness.tickUntilIdle()
        let everything = harness.call("local.remove", [:])
        #expect(Set(everything["removed"]?.arrayValue?.compactMap(\.string) ?? []) == ["later", "x"],
                "without delivered (the SDK's nil identifier), both lists")
        #expect(harness.found(false).isEmpty && harness.found(true).isEmpty)
        harness.advance(3600)
        try harness.tickUntilIdle()
        #expect(try harness.fired().map(\.identifier) == ["a", "b", "c", "x"], "a removed request never fires")
    }

    @Test func aDeviceBelongsToOneApp() {
        _ = harness.add("mine", TriggerJSON.interval(60))
        #expect(harness.call("local.find", [:], app: "app2").code == 1008)
        #expect(harness.call("local.add", ["identifier": "i".json, "content": .object([:]),
                                           "trigger": TriggerJSON.interval(5)], app: "app2").code == 1008)
        #expect(harness.found(false, device: "unknown").isEmpty, "an unknown device has nothing")
    }
}

extension JSONValue {
    var arrayValue: [JSONValue]? { if case .array(let items) = self { return items } else { return nil } }
}
