import Schema
import WireTime

/// The wall-clock readings a `date_components` trigger matches, as iOS matches them: every given
/// component must equal; components finer than the finest one given are fixed at their minimum
/// (`hour: 8` means 08:00:00), and those between given ones are free (`hour: 8, second: 15`
/// matches every minute of that hour at :15). Weekday 1 is Sunday; a date that does not exist
/// (31 April, 29 February of a common year) never matches.
///
/// Hand-written, with `ZoneRules`, rather than Foundation's `Calendar.nextDate(after:matching:
/// matchingPolicy:repeatedTimePolicy:)`, for two reasons measured in issue 16. It keeps the documented DST
/// rules where Foundation does not: `CalendarDifferentialTests` (2,000 random rules in 20 zones, most
/// instants near a DST change) finds the same next fire in 15,171 of 15,215 cases over four seeds; in the
/// others Foundation skips a day at a 30-minute or 2-hour gap, fires a reading at its second showing, or
/// finds nothing, and a few are the deliberate difference for requests added during an overlap's second
/// pass; each kind is pinned in that suite. And it is about 20 times faster on the scheduler's load
/// (bench-calendar, 10,000 requests due in one second, release build, 2026-11-30): 4.0-4.8 µs a next fire
/// (208,000-250,000/s) against 97-109 µs (9,200-10,300/s) for Foundation, where the scheduler spends about
/// 60 µs in all on each request it fires (docs/benchmarks.md).
struct CalendarRule: Equatable {
    let year: Int?
    private let months: ClosedRange<Int>
    private let days: ClosedRange<Int>
    private let weekday: Int?
    private let hours: ClosedRange<Int>
    private let minutes: ClosedRange<Int>
    private let seconds: ClosedRange<Int>

    /// How far ahead a rule without a year looks: one whole Gregorian cycle, so any date it can
    /// ever match is found.
    static let horizonYears = 400

    /// Checks each component's range (6017) and that at least one is given (6001).
    init(_ c: CalendarComponents) throws(CommandError) {
        let given: [Int?] = [c.year, c.month, c.day ?? c.weekday, c.hour, c.minute, c.second]
        guard let finest = given.lastIndex(where: { $0 != nil }) else {
            throw .empty("date_components needs at least one of year, month, day, weekday, hour, minute, second")
        }
        try Self.check(c.year, "year", 1...9999)
        try Self.check(c.month, "month", 1...12)
        try Self.check(c.day, "day", 1...31)
        try Self.check(c.weekday, "weekday", 1...7)
        try Self.check(c.hour, "hour", 0...23)
        try Self.check(c.minute, "minute", 0...59)
        try Self.check(c.second, "second", 0...59)
        func range(_ value: Int?, unit: Int, _ all: ClosedRange<Int>) -> ClosedRange<Int> {
            if let value { return value...value }
            return finest < unit ? all.lowerBound...all.lowerBound : all
        }
        year = c.year
        months = range(c.month, unit: 1, 1...12)
        days = range(c.day, unit: 2, 1...31)
        weekday = c.weekday
        hours = range(c.hour, unit: 3, 0...23)
        minutes = range(c.minute, unit: 4, 0...59)
        seconds = range(c.second, unit: 5, 0...59)
    }

    private static func check(_ value: Int?, _ name: String, _ allowed: ClosedRange<Int>) throws(CommandError) {
        guard let value else { return }
        guard allowed.contains(value) else {
            throw .invalid("date_components.\(name) must be in \(allowed.lowerBound)...\(allowed.upperBound)")
        }
    }

    /// The first matching wall reading strictly after `wall` (wall seconds), or nil when none is
    /// left within the horizon.
    func nextWall(after wall: Int64) -> Int64? {
        let start = CivilTime(wallSeconds: wall)
        let startDate = (start.year, start.month, start.day)
        let years = year.map { $0...$0 } ?? start.year...(start.year + Self.horizonYears)
        for y in years where y >= start.year {
            for m in months where (y, m) >= (start.year, start.month) {
                let length = Gregorian.daysInMonth(year: y, month: m)
                for d in days where d <= length && (y, m, d) >= startDate {
                    if let weekday, Gregorian.weekday(year: y, month: m, day: d) != weekday { continue }
                    let sameDay = (y, m, d) == startDate
                    guard let time = firstTime(after: sameDay ? (start.hour, start.minute, start.second) : nil) else {
                        continue
                    }
                    return CivilTime(year: y, month: m, day: d, hour: time.hour, minute: time.minute,
                                     second: time.second).wallSeconds
                }
            }
        }
        return nil
    }

    /// The earliest matching time of day, strictly after `after` when given.
    private func firstTime(after: (hour: Int, minute: Int, second: Int)?) -> (hour: Int, minute: Int, second: Int)? {
        guard let after else { return (hours.lowerBound, minutes.lowerBound, seconds.lowerBound) }
        for h in hours where h >= after.hour {
            let laterHour = h > after.hour
            for m in minutes where laterHour || m >= after.minute {
                let laterMinute = laterHour || m > after.minute
                if let s = seconds.first(where: { laterMinute || $0 > after.second }) { return (h, m, s) }
            }
        }
        return nil
    }
}
