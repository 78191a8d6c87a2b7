import Foundation
import JSON
import Schema

/// When a server-side scheduled push fires (EngageLab's v4 schedule triggers): once, at
/// `single.time`; or `periodical`ly between `start` and `end` at `time` of every day, of the week
/// days in `point` (`MON`…`SUN`) or of the month days in `point` (`01`…`31`). Times are
/// `yyyy-MM-dd HH:mm:ss` (`HH:mm:ss` for `time`) on the wall clock of the schedule's time zone.
struct PushTrigger: Equatable {
    enum Unit: String { case day, week, month }

    enum Kind: Equatable {
        case single(Double)
        case periodical(start: Double, end: Double, seconds: Int, unit: Unit, points: Set<Int>)
    }

    let kind: Kind
    let zone: TimeZone

    static let weekdays = ["SUN": 1, "MON": 2, "TUE": 3, "WED": 4, "THU": 5, "FRI": 6, "SAT": 7]
    /// A periodical schedule may run for at most this long (EngageLab's limit is a year or so; this
    /// bounds the search for the next time).
    static let maxSpan = 3 * 366 * 86_400.0

    init(_ trigger: JSONValue?, timezone: String) throws(CommandError) {
        guard let zone = TimeZone(identifier: timezone) else { throw CommandError(.pushInvalid, "timezone \(timezone.prefix(64)) is not an IANA name") }
        self.zone = zone
        guard case .object(let object)? = trigger else { throw CommandError(.pushMissing, "trigger is missing or not an object") }
        if case .object(let single)? = object["single"], object["periodical"] == nil {
            kind = .single(try Self.dateTime(single["time"], "trigger.single.time", zone))
            return
        }
        guard case .object(let periodical)? = object["periodical"], object["single"] == nil else {
            throw CommandError(.pushInvalid, "trigger must hold one of single or periodical")
        }
        let start = try Self.dateTime(periodical["start"], "trigger.periodical.start", zone)
        let end = try Self.dateTime(periodical["end"], "trigger.periodical.end", zone)
        guard end > start, end - start <= Self.maxSpan else {
            throw CommandError(.pushInvalid, "trigger.periodical.end must follow start, within three years")
        }
        let seconds = try Self.timeOfDay(periodical["time"])
        guard let unitName = periodical["time_unit"]?.string, let unit = Unit(rawValue: unitName.lowercased()) else {
            throw CommandError(.pushInvalid, "trigger.periodical.time_unit must be day, week or month")
        }
        var points = Set<Int>()
        if unit != .day {
            guard case .array(let given)? = periodical["point"], !given.isEmpty else {
                throw CommandError(.pushMissing, "trigger.periodical.point is needed for \(unit.rawValue)")
            }
            for item in given {
                let text = item.string?.uppercased() ?? ""
                let value = unit == .week ? Self.weekdays[text] : Int(text).flatMap { (1...31).contains($0) ? $0 : nil }
                guard let value else {
                    throw CommandError(.pushInvalid, unit == .week ? "trigger.periodical.point holds MON…SUN" : "trigger.periodical.point holds 01…31")
                }
                points.insert(value)
            }
        }
        kind = .periodical(start: start, end: end, seconds: seconds, unit: unit, points: points)
    }

    /// The first time it fires after `after` (Unix seconds), or nil when none is left.
    func next(after: Double) -> Double? {
        switch kind {
        case .single(let at):
            return at > after ? at : nil
        case .periodical(let start, let end, let seconds, let unit, let points):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            var day = calendar.startOfDay(for: Date(timeIntervalSince1970: max(start, after)))
            let last = Date(timeIntervalSince1970: end)
            while day <= last {
                let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: day)
                let matches = switch unit {
                case .day: true
                case .week: points.contains(parts.weekday ?? 0)
                case .month: points.contains(parts.day ?? 0)
                }
                if matches, let at = calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day,
                                                                        hour: seconds / 3600, minute: seconds / 60 % 60, second: seconds % 60)) {
                    let t = at.timeIntervalSince1970
                    if t > after, t >= start, t <= end { return t }
                }
                guard let following = calendar.date(byAdding: .day, value: 1, to: day) else { return nil }
                day = following
            }
            return nil
        }
    }

    private static func dateTime(_ value: JSONValue?, _ field: String, _ zone: TimeZone) throws(CommandError) -> Double {
        guard let text = value?.string else { throw CommandError(.pushMissing, "\(field) is missing") }
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "-" || $0 == ":" }).map { Int($0) }
        guard text.utf8.count == 19, parts.count == 6, parts.allSatisfy({ $0 != nil }) else {
            throw CommandError(.pushInvalid, "\(field) must be yyyy-MM-dd HH:mm:ss")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let wanted = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5])
        guard let date = calendar.date(from: wanted),
              calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date) == wanted else {
            throw CommandError(.pushInvalid, "\(field) is not a time of the calendar: \(text.prefix(32))")
        }
        return date.timeIntervalSince1970
    }

    private static func timeOfDay(_ value: JSONValue?) throws(CommandError) -> Int {
        guard let text = value?.string else { throw CommandError(.pushMissing, "trigger.periodical.time is missing") }
        let parts = text.split(separator: ":").map { Int($0) }
        guard text.utf8.count == 8, parts.count == 3, let h = parts[0], let m = parts[1], let s = parts[2],
              (0...23).contains(h), (0...59).contains(m), (0...59).contains(s) else {
            throw CommandError(.pushInvalid, "trigger.periodical.time must be HH:mm:ss")
        }
        return h * 3600 + m * 60 + s
    }
}
