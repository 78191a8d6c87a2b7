import Foundation
import Schema

/// The next fire of a `date_components` trigger as Foundation's `Calendar.nextDate(after:matching:
/// matchingPolicy:repeatedTimePolicy:direction:)` finds it, held to the scheduler's documented rules
/// (docs/services/scheduler.md), so that the scheduler's own matcher can be tested against it.
///
/// Foundation is asked with `.nextTime` (a wall time in a DST gap becomes the first time after the gap,
/// as the scheduler fires it) and `.first` (a wall time shown twice fires the first time). Where the
/// documented rules are not Foundation's, the oracle bridges them:
/// - a component between given ones is free for the scheduler (`{hour: 8, second: 15}` is every minute
///   of 8 o'clock) but fixed at its lowest by Foundation, so each such rule is asked as the few queries
///   without holes that can hold its next fire, and the earliest answer wins;
/// - a date the month lacks never matches, where `.nextTime` answers the next day that exists, so an
///   answer is kept only when its wall reading matches the rule (or it ends a gap that held a match),
///   and otherwise Foundation is asked again after it;
/// - a fire's wall reading must come after the reading at the start, so an overlap's repeated readings
///   do not fire twice.
struct CalendarOracle {
    let rule: CalendarComponents
    let zone: TimeZone
    private let calendar: Calendar
    private let wallCalendar: Calendar
    private let given: [Int?]
    private let coarsest: Int
    private let finest: Int

    private static let units: [Calendar.Component] = [.year, .month, .day, .hour, .minute, .second]
    private static let lowest = [0, 1, 1, 0, 0, 0]
    private static let highest = [9999, 12, 31, 23, 59, 59]
    /// How often an answer that does not match (a day the month lacks) is passed over before asking `.strict`.
    private static let retries = 12

    init(rule: CalendarComponents, zone: TimeZone) {
        self.rule = rule
        self.zone = zone
        calendar = Self.gregorian(zone)
        wallCalendar = Self.gregorian(TimeZone(secondsFromGMT: 0)!)
        given = [rule.year, rule.month, rule.day, rule.hour, rule.minute, rule.second]
        let levels = [rule.year, rule.month, rule.day ?? rule.weekday, rule.hour, rule.minute, rule.second]
        coarsest = levels.firstIndex { $0 != nil } ?? 0
        finest = levels.lastIndex { $0 != nil } ?? 0
    }

    private static func gregorian(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// The wall reading of `instant` in the zone, as the UTC date that shows the same reading.
    func wall(_ instant: Date) -> Date { instant + Double(zone.secondsFromGMT(for: instant)) }

    /// The first fire strictly after `instant`, or nil when Foundation finds none.
    func next(after instant: Date) -> Date? {
        let start = wall(instant)
        return queries(from: start).compactMap { firstFire(of: $0, after: instant, start: start) }.min()
    }

    /// Whether the rule may fire at `fire` after `instant`: the reading there comes later than the one at
    /// `instant` and matches, or `fire` ends a DST gap that held a matching reading.
    func mayFire(at fire: Date, after instant: Date) -> Bool {
        let start = wall(instant)
        return queries(from: start).contains { fires(at: fire, for: $0, start: start) }
    }

    private func firstFire(of query: DateComponents, after instant: Date, start: Date) -> Date? {
        var cursor = instant
        for attempt in 0...Self.retries {
            let policy: Calendar.MatchingPolicy = attempt < Self.retries ? .nextTime : .strict
            guard let fire = calendar.nextDate(after: cursor, matching: query, matchingPolicy: policy,
                                               repeatedTimePolicy: .first, direction: .forward) else { return nil }
            if fires(at: fire, for: query, start: start) { return fire }
            cursor = fire
        }
        return nil
    }

    private func fires(at fire: Date, for query: DateComponents, start: Date) -> Bool {
        let reading = wall(fire)
        guard reading > start else { return false }
        if wallCalendar.date(reading, matchesComponents: query) { return true }
        let before = Double(zone.secondsFromGMT(for: fire - 1)), after = Double(zone.secondsFromGMT(for: fire))
        guard after > before else { return false }
        let skipped = wallCalendar.nextDate(after: max(fire + before - 1, start), matching: query, matchingPolicy: .strict,
                                            repeatedTimePolicy: .first, direction: .forward)
        return skipped.map { $0 < fire + after } ?? false
    }

    /// Queries without holes whose earliest fire is the rule's. A component finer than the finest given
    /// is at its lowest; one between given ones takes the values the next fire can give it: the start's,
    /// the one after, or its lowest once a coarser component has moved on (any month, and any of a week's
    /// days, when a weekday is asked).
    func queries(from start: Date) -> [DateComponents] {
        let reading = wallCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: start)
        let now = Self.units.map { reading.value(for: $0) ?? 0 }
        var queries: [DateComponents] = []
        func build(_ level: Int, sameAsStart: Bool, _ query: DateComponents) {
            guard level < Self.units.count else {
                if possible(query, from: now) { queries.append(query) }
                return
            }
            for value in Set(values(at: level, sameAsStart: sameAsStart, now: now)) {
                if let value, value > Self.highest[level] { continue }
                var next = query
                next.setValue(value, for: Self.units[level])
                build(level + 1, sameAsStart: sameAsStart && (value == nil || value == now[level]), next)
            }
        }
        var base = DateComponents()
        base.weekday = rule.weekday
        build(0, sameAsStart: true, base)
        return queries
    }

    private func values(at level: Int, sameAsStart: Bool, now: [Int]) -> [Int?] {
        if let value = given[level] { return [value] }
        if level > finest { return [Self.lowest[level]] }
        if level <= coarsest { return [nil] }
        if level == 1 && rule.weekday != nil { return Array(1...12) }
        if level == 2 && rule.weekday != nil { return (sameAsStart ? Array(now[2]...(now[2] + 7)) : []) + Array(1...7) }
        guard sameAsStart else { return [Self.lowest[level]] }
        return level == 1 ? [now[1], now[1] + 1, now[1] + 2, 1] : [now[level], now[level] + 1, Self.lowest[level]]
    }

    /// Whether a query can match at all: its year not past, its day one the month has, on its weekday.
    private func possible(_ query: DateComponents, from now: [Int]) -> Bool {
        if let year = query.year, year < now[0] { return false }
        guard let month = query.month, let day = query.day else { return true }
        guard let date = wallCalendar.date(from: DateComponents(year: query.year ?? 2000, month: month, day: day)) else {
            return false
        }
        let made = wallCalendar.dateComponents([.month, .day, .weekday], from: date)
        guard made.month == month, made.day == day else { return false }
        return query.year == nil || query.weekday == nil || made.weekday == query.weekday
    }
}
