import Foundation
import JSON
import Testing
@testable import SchedulerKit

/// Server-side scheduled pushes: the triggers' times, and firing through the real processes.
@Suite("Scheduled pushes", .serialized)
struct PushScheduleTests {
    static func periodical(_ start: String, _ end: String, _ time: String, _ unit: String, _ points: [String] = []) -> JSONValue {
        .object(["periodical": .object(["start": .string(start), "end": .string(end), "time": .string(time), "time_unit": .string(unit),
                                        "point": .array(points.map(JSONValue.string))])])
    }

    static func utc(_ text: String) -> Double {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text)!.timeIntervalSince1970
    }

    @Test("single and periodical triggers give EngageLab's times, in the schedule's time zone")
    func triggerTimes() throws {
        let once = try PushTrigger(.object(["single": .object(["time": .string("2030-03-01 09:30:00")])]), timezone: "Asia/Shanghai")
        #expect(once.next(after: 0) == Self.utc("2030-03-01T01:30:00Z"))
        #expect(once.next(after: Self.utc("2030-03-01T01:30:00Z")) == nil)

        let daily = try PushTrigger(Self.periodical("2030-01-01 00:00:00", "2030-01-03 23:59:59", "08:00:00", "day"), timezone: "UTC")
        var times: [Double] = []
        var after = 0.0
        while let t = daily.next(after: after) { times.append(t); after = t }
        #expect(times == [Self.utc("2030-01-01T08:00:00Z"), Self.utc("2030-01-02T08:00:00Z"), Self.utc("2030-01-03T08:00:00Z")])

        // 2030-01-01 is a Tuesday.
        let weekly = try PushTrigger(Self.periodical("2030-01-01 00:00:00", "2030-01-31 00:00:00", "12:00:00", "week", ["WED", "fri"]),
                                     timezone: "America/New_York")
        #expect(weekly.next(after: 0) == Self.utc("2030-01-02T17:00:00Z"))
        #expect(weekly.next(after: Self.utc("2030-01-02T17:00:00Z")) == Self.utc("2030-01-04T17:00:00Z"))

        let monthly = try PushTrigger(Self.periodical("2030-01-15 00:00:00", "2030-06-01 00:00:00", "10:00:00", "month", ["31"]), timezone: "UTC")
        #expect(monthly.next(after: 0) == Self.utc("2030-01-31T10:00:00Z"))
        #expect(monthly.next(after: Self.utc("2030-01-31T10:00:00Z")) == Self.utc("2030-03-31T10:00:00Z"), "February has no 31st")

        for (bad, code) in [(JSONValue.object([:]), 1003), (.string("soon"), 1002),
                            (.object(["single": .object(["time": .string("2030-02-30 09:00:00")])]), 1003),
                            (.object(["single": .object(["time": .string("2030-02-01T09:00:00Z")])]), 1003),
                            (Self.periodical("2030-01-02 00:00:00", "2030-01-01 00:00:00", "08:00:00", "day"), 1003),
                            (Self.periodical("2030-01-01 00:00:00", "2030-02-01 00:00:00", "25:00:00", "day"), 1003),
                            (Self.periodical("2030-01-01 00:00:00", "2030-02-01 00:00:00", "08:00:00", "week", ["XYZ"]), 1003),
                            (Self.periodical("2030-01-01 00:00:00", "2030-02-01 00:00:00", "08:00:00", "week"), 1002),
                            (Self.periodical("2030-01-01 00:00:00", "2030-02-01 00:00:00", "08:00:00", "year"), 1003)] {
            #expect(throws: (any Error).self) { try PushTrigger(bad, timezone: "UTC") }
            do { _ = try PushTrigger(bad, timezone: "UTC") } catch { #expect(error.code.rawValue == code, "\(bad): \(error)") }
        }
    }

    static func wallClock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    @Test("a schedule fires exactly one push, also when the scheduler was down at its time")
    func firesOnceAndAfterDowntime() throws {
        let push = try PushStack(services: ["registration", "tagging", "badge", "analytics", "scheduler"])
        let a = try push.device(PushIntegrationTests.token(81), tags: ["news"])
        try push.waitUntilKnown([a])
        let payload: JSONValue = .object(["to": .object(["tag": .array([.string("news")])]),
                                          "body": .object(["platform": .string("ios"), "notification": .object(["alert": .string("Morning news")])])])
        func create(_ name: String, at date: Date) throws -> String {
            let created = try push.call("schedule.create", ["app_key": .string(push.appKey), "name": .string(name), "enabled": .bool(true),
                                                            "trigger": .object(["single": .object(["time": .string(Self.wallClock(date))])]),
                                                            "push": payload])
            return try #require(created["schedule_id"]?.string, "\(created)")
        }
        func msgIDs(_ id: String) throws -> [String] {
            try push.call("schedule.msg_ids", ["app_key": .string(push.appKey), "schedule_id": .string(id)])["msg_ids"]?.arrayStrings ?? []
        }

        let soon = try create("soon", at: Date().addingTimeInterval(2))
        #expect(try eventually(20, every: 100_000) { try msgIDs(soon).count == 1 })
        let msgID = try #require(try msgIDs(soon).first)
        _ = try push.waitUntilDone(msgID)
        usleep(1_500_000)
        #expect(try msgIDs(soon) == [msgID], "fired once")
        #expect(try push.received(msgID).count == 1)
        let info = try push.call("schedule.get", ["app_key": .string(push.appKey), "schedule_id": .string(soon)])
        #expect(info["next_fire_at"] == nil, "a single schedule has nothing left: \(info)")

        // Down at its time: it fires when the scheduler starts again.
        let missed = try create("missed", at: Date().addingTimeInterval(3))
        push.stack.services["scheduler"]?.kill()
        usleep(4_000_000)
        try push.stack.startService("scheduler")
        #expect(try eventually(20, every: 100_000) { try msgIDs(missed).count == 1 })
        usleep(1_500_000)
        #expect(try msgIDs(missed).count == 1)

        let listed = try push.call("schedule.list", ["app_key": .string(push.appKey)])
        #expect(listed["total_count"]?.number == 2)
        #expect(try push.call("schedule.delete", ["app_key": .string(push.appKey), "schedule_id": .string(soon)]).code == 0)
        #expect(try push.call("schedule.get", ["app_key": .string(push.appKey), "schedule_id": .string(soon)]).code == 1003)
        let past = try push.call("schedule.create", ["app_key": .string(push.appKey), "name": .string("past"),
                                                     "trigger": .object(["single": .object(["time": .string("2001-01-01 00:00:00")])]),
                                                     "push": payload])
        #expect(past.code == 1003)
    }

    @Test("a schedule push.validate refuses is refused at create and at update, nothing stored; an app keeps at most the cap")
    func checkedByPushAndCapped() throws {
        let push = try PushStack(services: ["registration", "tagging", "badge", "analytics"])
        try push.stack.startService("scheduler", extra: ["--max-schedules-per-app", "3", "--inquiry-timeout-ms", "1000"])
        let mine = try push.device(PushIntegrationTests.token(91), tags: ["news"])
        try push.waitUntilKnown([mine])
        // Another app, with its own APNs key and device.
        let other = "otherapp"
        let saved = try push.call("apns.credentials", ["app_key": .string(other), "team_id": .string(ApnsStandIn.teamID),
                                                       "key_id": .string(ApnsStandIn.keyID), "bundle_id": .string(ApnsStandIn.bundleID),
                                                       "p8": .string(push.apns.p8)])
        #expect(saved.code == 0, "\(saved)")
        let theirs = try #require(try push.call("device.register", ["app_key": .string(other), "platform": "ios".json,
                                                                    "apns_token": .string(PushIntegrationTests.token(92)),
                                                                    "device_id": "other-92".json])["registration_id"]?.string)
        #expect(try eventually(15) {
            try push.call("audience.resolve", ["app_key": .string(other), "all": .bool(true), "limit": .number(1)])["total"]?.number == 1
        })

        func ios(_ fields: [String: JSONValue]) -> JSONValue {
            .object(["platform": "ios".json, "notification": .object(["ios": .object(fields)])])
        }
        func to(_ ids: [String]) -> JSONValue { .object(["registration_id": .array(ids.map(JSONValue.string))]) }
        func create(_ name: String, _ to: JSONValue, _ body: JSONValue, app: String? = nil, in seconds: Double = 3600) throws -> JSONValue {
            try push.call("schedule.create", ["app_key": .string(app ?? push.appKey), "name": .string(name),
                                              "trigger": .object(["single": .object(["time": .string(Self.wallClock(Date().addingTimeInterval(seconds)))])]),
                                              "push": .object(["to": to, "body": body])])
        }
        func validate(_ to: JSONValue, _ body: JSONValue) throws -> JSONValue {
            try push.call("push.validate", ["app_key": .string(push.appKey), "to": to, "body": body])
        }
        func stored(_ app: String? = nil) throws -> Double? {
            try push.call("schedule.list", ["app_key": .string(app ?? push.appKey)])["total_count"]?.number
        }
        let hello = ios(["alert": "hello".json])

        // Each push.validate refuses is refused the same way, and nothing is stored.
        let refused: [(String, JSONValue, JSONValue, Int)] = [
            ("badge 500", to([mine]), ios(["alert": "hello".json, "badge": "500".json]), 1003),
            ("5 KB alert", to([mine]), ios(["alert": .string(String(repeating: "x", count: 5 * 1024))]), 1005),
            ("another app's device", to([theirs]), hello, 1011),
        ]
        for (name, target, body, code) in refused {
            let validated = try validate(target, body)
            #expect(validated.code == code, "push.validate, \(name): \(validated)")
            let created = try create(name, target, body)
            #expect(created.code == validated.code && created["message"] == validated["message"], "\(name): \(created)")
        }
        #expect(try stored() == 0, "nothing stored")

        // Tags nobody has yet: push.validate finds no device, but devices may come before it fires.
        let later: JSONValue = .object(["tag": .array(["later".json])])
        #expect(try validate(later, hello).code == 1011)
        let waiting = try #require(try create("later", later, hello)["schedule_id"]?.string)

        // A valid one is accepted and fires.
        let soon = try #require(try create("soon", to([mine]), hello, in: 3)["schedule_id"]?.string)
        var sent: [String] = []
        #expect(try eventually(20, every: 100_000) {
            sent = try push.call("schedule.msg_ids", ["app_key": .string(push.appKey), "schedule_id": .string(soon)])["msg_ids"]?.arrayStrings ?? []
            return sent.count == 1
        })
        let msgID = try #require(sent.first)
        _ = try push.waitUntilDone(msgID)
        #expect(try push.received(msgID).count == 1)

        // An update that breaks the stored push is refused as push.validate refuses it; the schedule stays as it was.
        let before = try push.call("schedule.get", ["app_key": .string(push.appKey), "schedule_id": .string(waiting)])
        for (name, target, body, code) in refused {
            let updated = try push.call("schedule.update", ["app_key": .string(push.appKey), "schedule_id": .string(waiting),
                                                            "name": "renamed".json, "push": .object(["to": target, "body": body])])
            #expect(updated.code == code, "update, \(name): \(updated)")
        }
        #expect(try push.call("schedule.get", ["app_key": .string(push.appKey), "schedule_id": .string(waiting)]) == before)

        // The cap (3 here): the third is taken, a fourth is not; another app still creates; a deleted one frees its place.
        #expect(try create("third", to([mine]), hello).code == 0)
        let over = try create("fourth", to([mine]), hello)
        #expect(over.code == 1003 && over["message"]?.string == "the app keeps 3 schedules, at most 3 are allowed: delete one first", "\(over)")
        #expect(try create("theirs", to([theirs]), hello, app: other).code == 0)
        #expect(try push.call("schedule.delete", ["app_key": .string(push.appKey), "schedule_id": .string(soon)]).code == 0)
        #expect(try create("fourth", to([mine]), hello).code == 0)
        #expect(try stored() == 3 && stored(other) == 1)

        // push does not answer: 6002, and nothing unchecked is stored.
        #expect(try push.call("schedule.delete", ["app_key": .string(push.appKey), "schedule_id": .string(waiting)]).code == 0)
        let pid = try #require(push.stack.services["push"]?.process.processIdentifier)
        kill(pid, SIGSTOP)
        let unanswered = try create("unchecked", to([mine]), hello)
        kill(pid, SIGCONT)
        #expect(unanswered.code == 6002, "\(unanswered)")
        #expect(try stored() == 2)
    }
}
