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
}
