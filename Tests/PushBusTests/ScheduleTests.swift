import Foundation
import Runtime
import Schema
import Testing
import WireTime
@testable import SchedulerKit

/// Unix seconds of an RFC 3339 time, for readable expectations.
func instant(_ text: String) -> Double {
    RFC3339.date(from: text)?.timeIntervalSince1970 ?? .nan
}

/// The time after `after` a calendar trigger next fires, as RFC 3339 UTC.
func nextCalendarFire(_ components: CalendarComponents, zone: String, after: String) -> String? {
    let trigger = LocalTrigger(dateComponents: components, repeats: true, timezone: zone)
    guard let schedule = try? Schedule(trigger, deviceZone: nil) else { return "invalid" }
    return schedule.firstFire(after: instant(after)).map(RFC3339.string(seconds:))
}

/// The fire times of a repeating calendar trigger one after another, starting after `after`.
func calendarFires(_ components: CalendarComponents, zone: String, after: String, count: Int) -> [String] {
    var fires: [String] = []
    var from = after
    while fires.count < count, let next = nextCalendarFire(components, zone: zone, after: from) {
        fires.append(next)
        from = next
    }
    return fires
}

@Suite("schedule: next fire of each trigger kind")
struct ScheduleTests {
    // MARK: time_interval

    @Test func aOneShotIntervalFiresThatLongAfterTheAdd() throws {
        let schedule = try Schedule(LocalTrigger(timeInterval: 2.5), deviceZone: nil)
        #expect(schedule.firstFire(after: 1_000) == 1_002.5)
        #expect(schedule.occurrence(after: 1_003, due: 1_002.5) == nil, "a one-shot has no next occurrence")
    }

    @Test func aRepeatingIntervalKeepsItsPhase() throws {
        let schedule = try Schedule(LocalTrigger(timeInterval: 3_600, repeats: true), deviceZone: nil)
        #expect(schedule.firstFire(after: 0) == 3_600)
        #expect(schedule.occurrence(after: 3_600, due: 3_600) == 7_200)
        #expect(schedule.occurrence(after: 3_600 + 7_200.5, due: 3_600) == 14_400, "missed turns are skipped, phase kept")
        #expect(schedule.occurrence(after: 100, due: 3_600) == 3_600, "before the due time the due time is next")
    }

    @Test(arguments: [(59.0, true, 6017), (60.0, true, 0), (1.0, false, 0), (0.5, false, 0), (0.0, false, 6017),
                      (-5.0, false, 6017), (59.999, true, 6017)])
    func theSixtySecondRule(_ seconds: Double, _ repeats: Bool, _ code: Int) {
        let result = Result { () throws(CommandError) in try Schedule(LocalTrigger(timeInterval: seconds, repeats: repeats), deviceZone: nil) }
        switch result {
        case .success: #expect(code == 0)
        case .failure(let error): #expect(error.code.rawValue == code, "\(error)")
        }
    }

    // MARK: fire_date

    @Test func aFireDateFiresOnceAndNeverInThePast() throws {
        let schedule = try Schedule(LocalTrigger(fireDate: "2025-03-01T08:00:05+08:00"), deviceZone: nil)
        #expect(schedule.firstFire(after: instant("2025-03-01T00:00:00Z")) == instant("2025-03-01T00:00:05Z"))
        #expect(schedule.firstFire(after: instant("2025-03-01T00:00:05Z")) == nil, "not after itself")
        #expect(!schedule.repeats)
    }

    @Test func aFireDateMustBeATimeAndCannotRepeat() {
        #expect(throws: CommandError.self) { try Schedule(LocalTrigger(fireDate: "tomorrow"), deviceZone: nil) }
        #expect(throws: CommandError.self) { try Schedule(LocalTrigger(fireDate: "2025-03-01T08:00:05Z", repeats: true), deviceZone: nil) }
    }

    // MARK: trigger shape

    @Test func aTriggerNamesExactlyOneKind() {
        func code(_ trigger: LocalTrigger?) -> Int? {
            do { _ = try Schedule(trigger, deviceZone: nil); return 0 } catch { return error.code.rawValue }
        }
        #expect(code(nil) == 6001)
        #expect(code(LocalTrigger()) == 6001)
        #expect(code(LocalTrigger(repeats: true)) == 6001)
        #expect(code(LocalTrigger(timeInterval: 5, fireDate: "2025-03-01T08:00:05Z")) == 6017)
        #expect(code(LocalTrigger(dateComponents: CalendarComponents(hour: 8), timezone: "Mars/Base")) == 6017)
        #expect(code(LocalTrigger(dateComponents: CalendarComponents())) == 6001)
        #expect(code(LocalTrigger(dateComponents: CalendarComponents(hour: 24))) == 6017)
        #expect(code(LocalTrigger(dateComponents: CalendarComponents(weekday: 0))) == 6017)
        #expect(code(LocalTrigger(dateComponents: CalendarComponents(month: 13))) == 6017)
        #expect(code(LocalTrigger(dateComponents: CalendarComponents(second: 60))) == 6017)
    }

    // MARK: date_components

    @Test func weekdayAndHourRepeatWeekly() {
        let mondays = calendarFires(CalendarComponents(weekday: 2, hour: 8), zone: "Asia/Shanghai",
                                    after: "2025-03-01T00:00:00Z", count: 3)
        #expect(mondays == ["2025-03-03T00:00:00Z", "2025-03-10T00:00:00Z", "2025-03-17T00:00:00Z"],
                "Monday 08:00 in Shanghai is 00:00 UTC")
        let sundays = calendarFires(CalendarComponents(weekday: 1, hour: 20, minute: 30), zone: "UTC",
                                    after: "2025-03-02T20:30:00Z", count: 2)
        #expect(sundays == ["2025-03-09T20:30:00Z", "2025-03-16T20:30:00Z"], "weekday 1 is Sunday")
    }

    @Test func finerComponentsThanTheFinestGivenAreZero() {
        #expect(calendarFires(CalendarComponents(hour: 8), zone: "UTC", after: "2025-03-01T08:00:00Z", count: 2)
                == ["2025-03-02T08:00:00Z", "2025-03-03T08:00:00Z"], "daily at 08:00:00, not every second of the hour")
        #expect(calendarFires(CalendarComponents(minute: 30), zone: "UTC", after: "2025-03-01T08:45:00Z", count: 2)
                == ["2025-03-01T09:30:00Z", "2025-03-01T10:30:00Z"], "hourly at :30")
        #expect(calendarFires(CalendarComponents(hour: 8, second: 15), zone: "UTC", after: "2025-03-01T08:00:15Z", count: 2)
                == ["2025-03-01T08:01:15Z", "2025-03-01T08:02:15Z"], "a free minute between given hour and second")
        #expect(nextCalendarFire(CalendarComponents(month: 7), zone: "UTC", after: "2025-03-01T00:00:00Z")
                == "2025-07-01T00:00:00Z")
        #expect(nextCalendarFire(CalendarComponents(year: 2027), zone: "UTC", after: "2025-03-01T00:00:00Z")
                == "2027-01-01T00:00:00Z")
        #expect(nextCalendarFire(CalendarComponents(day: 31), zone: "UTC", after: "2025-04-01T00:00:00Z")
                == "2025-05-31T00:00:00Z", "a month without the day is skipped")
    }

    @Test func leapDaysFireOnlyInLeapYears() {
        #expect(calendarFires(CalendarComponents(month: 2, day: 29, hour: 9), zone: "UTC",
                              after: "2025-01-01T00:00:00Z", count: 2)
                == ["2028-02-29T09:00:00Z", "2032-02-29T09:00:00Z"])
        #expect(nextCalendarFire(CalendarComponents(month: 2, day: 29), zone: "UTC", after: "2096-03-01T00:00:00Z")
                == "2104-02-29T00:00:00Z", "2100 is not a leap year")
        #expect(nextCalendarFire(CalendarComponents(year: 2100, month: 2, day: 29), zone: "UTC",
                                 after: "2025-01-01T00:00:00Z") == nil)
        #expect(nextCalendarFire(CalendarComponents(month: 2, day: 29, weekday: 2), zone: "UTC",
                                 after: "2025-01-01T00:00:00Z") == "2044-02-29T00:00:00Z", "the next leap day on a Monday")
    }

    @Test func componentsNoDateMatchesNeverFire() {
        #expect(nextCalendarFire(CalendarComponents(month: 4, day: 31), zone: "UTC", after: "2025-01-01T00:00:00Z") == nil)
        #expect(nextCalendarFire(CalendarComponents(year: 2020, month: 1), zone: "UTC", after: "2025-01-01T00:00:00Z") == nil)
    }

    // MARK: daylight saving time

    @Test func aWallTimeInASpringGapFiresWhenTheGapEnds() {
        // New York, 9 March 2025: 02:00 EST jumps to 03:00 EDT (07:00 UTC).
        #expect(calendarFires(CalendarComponents(hour: 2, minute: 30), zone: "America/New_York",
                              after: "2025-03-08T12:00:00Z", count: 2)
                == ["2025-03-09T07:00:00Z", "2025-03-10T06:30:00Z"])
        // Berlin, 30 March 2025: 02:00 CET jumps to 03:00 CEST (01:00 UTC).
        #expect(calendarFires(CalendarComponents(hour: 2, minute: 30), zone: "Europe/Berlin",
                              after: "2025-03-29T12:00:00Z", count: 2)
                == ["2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z"])
        // Sydney, 5 October 2025: 02:00 AEST jumps to 03:00 AEDT (16:00 UTC the day before).
        #expect(nextCalendarFire(CalendarComponents(hour: 2, minute: 15), zone: "Australia/Sydney",
                                 after: "2025-10-04T00:00:00Z") == "2025-10-04T16:00:00Z")
        // Lord Howe moves by half an hour: 02:00 jumps to 02:30.
        #expect(nextCalendarFire(CalendarComponents(hour: 2, minute: 15), zone: "Australia/Lord_Howe",
                                 after: "2025-10-04T00:00:00Z") == "2025-10-04T15:30:00Z")
    }

    @Test func everyWallTimeOfAGapFiresOnceAtItsEnd() {
        #expect(calendarFires(CalendarComponents(second: 0), zone: "America/New_York",
                              after: "2025-03-09T06:58:30Z", count: 3)
                == ["2025-03-09T06:59:00Z", "2025-03-09T07:00:00Z", "2025-03-09T07:01:00Z"],
                "01:59 EST, then 02:00-02:59 (missing) once at 03:00 EDT, then 03:01")
    }

    @Test func aWallTimeShownTwiceInAnAutumnOverlapFiresOnce() {
        // New York, 2 November 2025: 02:00 EDT falls back to 01:00 EST; 01:30 happens at 05:30 and 06:30 UTC.
        #expect(calendarFires(CalendarComponents(hour: 1, minute: 30), zone: "America/New_York",
                              after: "2025-11-01T12:00:00Z", count: 2)
                == ["2025-11-02T05:30:00Z", "2025-11-03T06:30:00Z"])
        #expect(calendarFires(CalendarComponents(minute: 30), zone: "America/New_York",
                              after: "2025-11-02T05:00:00Z", count: 2)
                == ["2025-11-02T05:30:00Z", "2025-11-02T07:30:00Z"], "hourly: the repeated 01:30 EST is skipped")
        // Berlin, 26 October 2025: 03:00 CEST falls back to 02:00 CET; 02:30 happens at 00:30 and 01:30 UTC.
        #expect(calendarFires(CalendarComponents(hour: 2, minute: 30), zone: "Europe/Berlin",
                              after: "2025-10-25T12:00:00Z", count: 2)
                == ["2025-10-26T00:30:00Z", "2025-10-27T01:30:00Z"])
        // Sydney, 6 April 2025: 03:00 AEDT falls back to 02:00 AEST; 02:30 happens at 15:30 and 16:30 UTC.
        #expect(calendarFires(CalendarComponents(hour: 2, minute: 30), zone: "Australia/Sydney",
                              after: "2025-04-05T00:00:00Z", count: 2)
                == ["2025-04-05T15:30:00Z", "2025-04-06T16:30:00Z"])
    }

    @Test func addedDuringTheSecondPassOfAnOverlapItFiresInThatPass() {
        // 01:15 EST (06:15 UTC) is the second 01:15 of the night; 01:30 EST is still ahead.
        #expect(nextCalendarFire(CalendarComponents(minute: 30), zone: "America/New_York",
                                 after: "2025-11-02T06:15:00Z") == "2025-11-02T06:30:00Z")
    }

    @Test func aTickLateIntoTheSecondPassDoesNotFireTheFirstPassAgain() throws {
        // 01:59:59 EDT (05:59:59 UTC) fires; the tick that reschedules it runs 1.5 s late, at 01:00:00.5 EST.
        // 01:59:59 EST shows that reading again, so the next fire is 02:59:59 EST, as when the tick is on time.
        let trigger = LocalTrigger(dateComponents: CalendarComponents(minute: 59, second: 59), repeats: true,
                                   timezone: "America/New_York")
        let schedule = try Schedule(trigger, deviceZone: nil)
        let due = instant("2025-11-02T05:59:59Z")
        #expect(schedule.occurrence(after: due, due: due).map(RFC3339.string(seconds:)) == "2025-11-02T07:59:59Z")
        #expect(schedule.occurrence(after: due + 1.5, due: due).map(RFC3339.string(seconds:)) == "2025-11-02T07:59:59Z")
    }

    // MARK: zones

    @Test func aCalendarTriggerReadsItsOwnZoneElseTheDevicesElseUTC() throws {
        let after = instant("2025-03-01T12:00:00Z")
        let components = CalendarComponents(hour: 9)
        let own = try Schedule(LocalTrigger(dateComponents: components, timezone: "Asia/Tokyo"), deviceZone: "Europe/Paris")
        let device = try Schedule(LocalTrigger(dateComponents: components), deviceZone: "Europe/Paris")
        let none = try Schedule(LocalTrigger(dateComponents: components), deviceZone: nil)
        #expect(own.firstFire(after: after).map(RFC3339.string(seconds:)) == "2025-03-02T00:00:00Z")
        #expect(device.firstFire(after: after).map(RFC3339.string(seconds:)) == "2025-03-02T08:00:00Z")
        #expect(none.firstFire(after: after).map(RFC3339.string(seconds:)) == "2025-03-02T09:00:00Z")
        #expect(!none.repeats, "repeat defaults to false")
    }

    // MARK: region

    @Test func aRegionHasNoTimeAndRepeatsWhenEitherLevelSaysSo() throws {
        let region = LocalRegion(latitude: 37.3354, longitude: -122.009201, radius: 2_000)
        let once = try Schedule(LocalTrigger(region: region), deviceZone: nil)
        #expect(once.firstFire(after: 0) == nil)
        #expect(!once.repeats)
        var repeating = region
        repeating.repeats = true
        #expect(try Schedule(LocalTrigger(region: repeating), deviceZone: nil).repeats)
        #expect(try Schedule(LocalTrigger(region: region, repeats: true), deviceZone: nil).repeats)
    }
}
