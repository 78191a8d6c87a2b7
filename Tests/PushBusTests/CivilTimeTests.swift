import Testing
import WireTime

@Suite("civil time")
struct CivilTimeTests {
    @Test func wallSecondsRoundTripOverFourCenturies() {
        var day = Gregorian.days(year: 1800, month: 1, day: 1)
        let end = Gregorian.days(year: 2200, month: 12, day: 31)
        var previous = CivilTime(wallSeconds: Int64(day - 1) * 86_400)
        while day <= end {
            let time = CivilTime(wallSeconds: Int64(day) * 86_400 + 3_723)
            #expect(time.wallSeconds == Int64(day) * 86_400 + 3_723)
            #expect((time.hour, time.minute, time.second) == (1, 2, 3))
            let advanced = time.day == previous.day + 1
                || (time.day == 1 && previous.day == Gregorian.daysInMonth(year: previous.year, month: previous.month))
            if !advanced { Issue.record("\(previous) is not followed by \(time)") }
            previous = time
            day += 1
        }
    }

    @Test func knownDates() {
        #expect(Gregorian.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilTime(wallSeconds: 1_740_787_200) == CivilTime(year: 2025, month: 3, day: 1))
        #expect(CivilTime(wallSeconds: -1) == CivilTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59))
        #expect(Gregorian.weekday(year: 2025, month: 3, day: 3) == 2, "a Monday")
        #expect(Gregorian.weekday(year: 1970, month: 1, day: 4) == 1, "a Sunday")
        #expect(Gregorian.weekday(year: 2000, month: 2, day: 29) == 3, "a Tuesday")
        #expect(Gregorian.daysInMonth(year: 2024, month: 2) == 29)
        #expect(Gregorian.daysInMonth(year: 1900, month: 2) == 28)
        #expect(Gregorian.daysInMonth(year: 2000, month: 2) == 29)
    }
}
