import Foundation
import Schema
import WireTime

/// A checked trigger: when a request fires, in Unix seconds. Built from the wire `LocalTrigger`;
/// a calendar trigger carries the zone it is read in (its own `timezone`, else the device's, else UTC).
enum Schedule {
    case interval(seconds: Double, repeats: Bool)
    case calendar(CalendarRule, zone: ZoneRules, repeats: Bool)
    case date(Double)
    case region(RegionRule, repeats: Bool)

    /// The smallest interval of a repeating `time_interval` trigger, as iOS requires.
    static let minimumRepeatInterval = 60.0
    /// 9999-12-31T23:59:59Z: nothing is scheduled later.
    static let latest = 253_402_300_799.0

    /// Checks `trigger` (6001 when it names no kind, 6017 when it is malformed). `deviceZone` is the
    /// device's IANA zone, used by a calendar trigger without its own.
    init(_ trigger: LocalTrigger?, deviceZone: String?) throws(CommandError) {
        guard let trigger else { throw .empty("trigger is missing") }
        guard let kind = trigger.kind else {
            let named = [trigger.timeInterval != nil, trigger.dateComponents != nil, trigger.fireDate != nil,
                         trigger.region != nil].filter { $0 }.count
            if named == 0 { throw .empty("trigger needs one of time_interval, date_components, fire_date, region") }
            throw .invalid("trigger names \(named) kinds; give exactly one")
        }
        let zoneName = try trigger.timezone.map(Validate.timeZone)
        let repeats = trigger.repeats ?? false
        switch kind {
        case .timeInterval:
            let seconds = trigger.timeInterval ?? 0
            guard seconds.isFinite, seconds > 0 else { throw .invalid("time_interval must be more than 0 seconds") }
            guard !repeats || seconds >= Self.minimumRepeatInterval else {
                throw .invalid("a repeating time_interval must be at least 60 seconds")
            }
            self = .interval(seconds: seconds, repeats: repeats)
        case .dateComponents:
            let rule = try CalendarRule(trigger.dateComponents ?? CalendarComponents())
            let zone = (zoneName ?? deviceZone).flatMap(TimeZone.init(identifier:)).map(ZoneRules.init) ?? .utc
            self = .calendar(rule, zone: zone, repeats: repeats)
        case .fireDate:
            guard let text = trigger.fireDate, let date = RFC3339.seconds(from: text) else {
                throw .invalid("fire_date must be an RFC 3339 time such as 2025-03-01T08:00:00Z")
            }
            guard !repeats else { throw .invalid("a fire_date trigger does not repeat") }
            self = .date(date)
        case .region:
            guard let region = trigger.region else { throw .empty("region is missing") }
            self = .region(try RegionRule(region), repeats: repeats || region.repeats == true)
        }
    }

    var kind: LocalTrigger.Kind {
        switch self {
        case .interval: .timeInterval
        case .calendar: .dateComponents
        case .date: .fireDate
        case .region: .region
        }
    }

    var repeats: Bool {
        switch self {
        case .interval(_, let repeats), .calendar(_, _, let repeats), .region(_, let repeats): repeats
        case .date: false
        }
    }

    /// When a request added at `now` first fires; nil for a region (it fires on location reports)
    /// and for a time that never comes (6101 at `local.add`).
    func firstFire(after now: Double) -> Double? {
        switch self {
        case .interval(let seconds, _): now + seconds
        case .calendar(let rule, let zone, _): Self.calendarFire(rule, zone, after: now)
        case .date(let date): date > now ? date : nil
        case .region: nil
        }
    }

    /// The first occurrence after `instant` of a repeating schedule whose current fire time is
    /// `due`, or nil when it does not repeat (or never fires again). An interval keeps its phase.
    func occurrence(after instant: Double, due: Double) -> Double? {
        guard repeats else { return nil }
        switch self {
        case .interval(let seconds, _):
            guard instant >= due else { return due }
            return due + seconds * ((instant - due) / seconds).rounded(.down) + seconds
        case .calendar(let rule, let zone, _):
            return instant < due ? due : Self.calendarFire(rule, zone, after: instant, since: due)
        case .date, .region:
            return nil
        }
    }

    /// The first instant after `instant` showing a wall reading `rule` matches in `zone`, and a reading
    /// later than the one at `due` (the fire before) when given. A reading in a gap fires when the gap
    /// ends; a reading shown twice fires the first time only: a request added during an overlap's second
    /// pass fires at the readings still ahead of it, but one that fired in the first pass is not fired again
    /// in the second, even when the tick that reschedules it comes after the clocks went back.
    private static func calendarFire(_ rule: CalendarRule, _ zone: ZoneRules, after instant: Double,
                                     since due: Double? = nil) -> Double? {
        var wall = zone.wallSeconds(at: Int64(instant.rounded(.down)))
        if let due { wall = max(wall, zone.wallSeconds(at: Int64(due.rounded(.down)))) }
        // A reading whose instants are all past (the first half of an overlap) is passed over.
        for _ in 0..<4 {
            guard let next = rule.nextWall(after: wall) else { return nil }
            if let fire = zone.instants(showing: next).first(where: { Double($0) > instant }) { return Double(fire) }
            wall = next
        }
        return nil
    }
}

extension LocalTrigger {
    /// When this trigger, added at `instant` (Unix seconds), first fires as the scheduler computes it: nil
    /// for a region or a time that never comes. Throws what `local.add` answers for a malformed trigger
    /// (6001, 6017). For tools and benchmarks; the service itself keeps a checked `Schedule`.
    public func firstFire(after instant: Double, deviceZone: String? = nil) throws(CommandError) -> Double? {
        try Schedule(self, deviceZone: deviceZone).firstFire(after: instant)
    }
}
