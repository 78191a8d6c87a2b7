import Foundation
import Schema
import Testing
import WireTime
@testable import SchedulerKit

/// The scheduler's next fire of a `date_components` trigger against Foundation's `Calendar`, over random
/// rules (any subset of the components), zones with and without daylight saving time, and instants
/// around their transitions. A new seed each run (`TestRandom`: `PUSHBUS_TEST_SEED` replays one), and
/// `PUSHBUS_CALENDAR_RULES` widens the run.
///
/// Where the two differ, the earlier answer is right if the rule may fire there (`CalendarOracle.mayFire`):
/// the scheduler answering later, or at a time the rule may not fire, fails the test; Foundation answering
/// later or not at all is counted and printed by kind.
@Suite("calendar: the scheduler against Foundation")
struct CalendarDifferentialTests {
    static let zones = [
        "UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago", "Asia/Tehran",
        "Pacific/Apia", "Europe/Berlin", "Australia/Sydney", "America/Havana", "America/Sao_Paulo", "Pacific/Chatham",
        "America/St_Johns", "Africa/Casablanca", "Europe/Dublin", "Antarctica/Troll", "Asia/Kolkata", "Asia/Kathmandu",
        "America/Los_Angeles", "Asia/Gaza",
    ]

    @Test func nextFiresAgreeWithFoundation() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["PUSHBUS_CALENDAR_RULES"].flatMap(Int.init) ?? 2_000
        var random = TestRandom()
        let seed = random.seed
        var tally = Tally()
        for index in 0..<count {
            let zoneName = Self.zones.randomElement(using: &random)!
            let zone = try #require(TimeZone(identifier: zoneName))
            let rule = Self.rule(&random)
            let repeats = Bool.random(using: &random)
            let schedule = try Schedule(LocalTrigger(dateComponents: rule, repeats: repeats, timezone: zoneName), deviceZone: nil)
            let oracle = CalendarOracle(rule: rule, zone: zone)
            var after = Self.instant(near: zone, &random)
            for turn in 0..<(repeats ? 3 : 1) {
                let ours = turn == 0 ? schedule.firstFire(after: after) : schedule.occurrence(after: after, due: after)
                let theirs = oracle.next(after: Date(timeIntervalSince1970: after))?.timeIntervalSince1970
                let line = "seed \(seed) rule \(index) turn \(turn): \(zoneName) \(Self.describe(rule)) after \(after) "
                    + "(\(RFC3339.string(seconds: after))): scheduler \(ours.map(RFC3339.string(seconds:)) ?? "none"), "
                    + "Foundation \(theirs.map(RFC3339.string(seconds:)) ?? "none")"
                tally.compared += 1
                if ours == theirs {
                    tally.agreed += 1
                } else if let ours, ours < theirs ?? .infinity,
                          oracle.mayFire(at: Date(timeIntervalSince1970: ours), after: Date(timeIntervalSince1970: after)) {
                    tally.foundationMissed(Self.kind(of: ours, theirs, in: zone), line)
                } else {
                    tally.wrong += 1
                    Issue.record("the scheduler is wrong: \(line)")
                }
                guard let next = ours ?? theirs else { break }
                after = next
            }
        }
        print("calendar differential: seed \(seed), \(count) rules, \(tally.summary)")
        #expect(tally.agreed * 100 >= tally.compared * 95, "Foundation and the scheduler agree on most rules")
    }

    /// Every kind of disagreement the random runs found, each pinned: the scheduler keeps its documented
    /// rules (docs/services/scheduler.md) where Foundation answers otherwise. A wall time in a gap fires
    /// when the gap ends, whatever the gap's length and whatever the rule's period; a wall time shown
    /// twice fires the first time only, and a trigger added during an overlap's second pass fires at the
    /// readings still ahead of it. Foundation's answers (Swift 6.3.1, `.nextTime`, `.first`) in the comments.
    @Test func whereFoundationDiffersTheDocumentedRulesHold() {
        // Lord Howe moves from 02:00 to 02:30. Foundation: the next day's 02:15, a day without a fire.
        #expect(nextCalendarFire(CalendarComponents(hour: 2, minute: 15), zone: "Australia/Lord_Howe",
                                 after: "2025-10-04T00:00:00Z") == "2025-10-04T15:30:00Z")
        // Just after that gap (2009), every minute of 02:xx at :00 still matches 02:31. Foundation: the next
        // day's 02:00, as given or with the minute given.
        #expect(nextCalendarFire(CalendarComponents(hour: 2, second: 0), zone: "Australia/Lord_Howe",
                                 after: "2009-10-03T15:30:00Z") == "2009-10-03T15:31:00Z")
        // Chatham moves from 02:45 to 03:45. Foundation: 04:00, a reading the rule does not match.
        #expect(nextCalendarFire(CalendarComponents(hour: 3), zone: "Pacific/Chatham",
                                 after: "2005-10-01T12:56:42Z") == "2005-10-01T14:00:00Z")
        // Troll moves from 01:00 to 03:00. Foundation: the next day's 02:00.
        #expect(nextCalendarFire(CalendarComponents(hour: 2, minute: 0, second: 0), zone: "Antarctica/Troll",
                                 after: "2028-03-26T00:12:18Z") == "2028-03-26T01:00:00Z")
        // Samoa skipped 30 December 2011. Foundation: 02:00 on the 31st, two hours after the gap.
        #expect(nextCalendarFire(CalendarComponents(hour: 2), zone: "Pacific/Apia",
                                 after: "2011-12-29T16:51:24Z") == "2011-12-30T10:00:00Z")
        // Havana skips midnight's hour; the gap's 00:15 fires at 01:00. Foundation: 01:15.
        #expect(nextCalendarFire(CalendarComponents(minute: 15), zone: "America/Havana",
                                 after: "2022-03-13T04:59:59Z") == "2022-03-13T05:00:00Z")
        // St. John's skips 02:00-02:59; hourly at :35, the gap's 02:35 fires at 03:00. Foundation: 03:35, for an
        // hourly rule passing over the reading that does not exist (for a daily one it fires at the gap's end).
        #expect(nextCalendarFire(CalendarComponents(minute: 35), zone: "America/St_Johns",
                                 after: "2023-03-12T05:05:00Z") == "2023-03-12T05:30:00Z")
        // Berlin falls back at 03:00; after 02:59:59 CEST the next minute not yet shown is 03:00 CET.
        // Foundation: 02:00 CET, the second showing of 02:00 (the first was at 00:00 UTC).
        #expect(nextCalendarFire(CalendarComponents(second: 0), zone: "Europe/Berlin",
                                 after: "2016-10-30T00:59:59Z") == "2016-10-30T02:00:00Z")
        // St. John's fell back at 00:01 until 2011, so 23:01-00:00 showed twice across midnight; Monday's
        // 06:00 is a day later. Foundation: none.
        #expect(nextCalendarFire(CalendarComponents(weekday: 2, hour: 6), zone: "America/St_Johns",
                                 after: "2007-11-04T03:27:36Z") == "2007-11-05T09:30:00Z")
        // A Wednesday the 30th at 01:49 in St. John's: the next is 30 March 2011. Foundation: none (as given,
        // `.nextTime` or `.strict`; it gives up before a day and a weekday that agree months ahead).
        #expect(nextCalendarFire(CalendarComponents(day: 30, weekday: 4, hour: 1, minute: 49), zone: "America/St_Johns",
                                 after: "2010-11-07T02:38:18Z") == "2011-03-30T04:19:00Z")
        // Added at 02:00:23 CET, in the second pass of Berlin's overlap: 02:37 CET is still ahead (as in
        // ScheduleTests' addedDuringTheSecondPassOfAnOverlapItFiresInThatPass). Foundation: 28 November,
        // passing over the rest of the day; asked with the hour given (as the oracle asks), 03:37 CET.
        #expect(nextCalendarFire(CalendarComponents(day: 28, minute: 37, second: 0), zone: "Europe/Berlin",
                                 after: "2012-10-28T01:00:23Z") == "2012-10-28T01:37:00Z")
    }

    // MARK: random cases

    static func rule(_ random: inout some RandomNumberGenerator) -> CalendarComponents {
        var rule = CalendarComponents()
        while rule == CalendarComponents() {
            func pick(_ chance: Int, _ values: ClosedRange<Int>) -> Int? {
                Int.random(in: 0..<chance, using: &random) == 0 ? Int.random(in: values, using: &random) : nil
            }
            rule.year = pick(6, 2004...2040)
            rule.month = pick(3, 1...12)
            rule.day = pick(3, Bool.random(using: &random) ? 28...31 : 1...31)
            rule.weekday = pick(3, 1...7)
            rule.hour = pick(2, Bool.random(using: &random) ? 0...3 : 0...23)
            rule.minute = pick(2, 0...59).map { Bool.random(using: &random) ? $0 / 15 * 15 : $0 }
            rule.second = pick(3, 0...59).map { Bool.random(using: &random) ? 0 : $0 }
        }
        return rule
    }

    /// Unix seconds between 2005 and 2036, most of them within days, hours or a second of a DST transition.
    static func instant(near zone: TimeZone, _ random: inout some RandomNumberGenerator) -> Double {
        let base = Double(Int.random(in: 1_104_537_600...2_082_758_400, using: &random))
        guard Int.random(in: 0..<3, using: &random) > 0,
              let transition = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: base)) else { return base }
        let moment = transition.timeIntervalSince1970
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return moment + Double(Int.random(in: -1...1, using: &random))
        case 1: return moment + Double(Int.random(in: -7_200...7_200, using: &random))
        case 2: return moment + Double(Int.random(in: -3 * 86_400...86_400, using: &random))
        default: return moment + Double(Int.random(in: -7_200...7_200, using: &random)) + 0.5
        }
    }

    static func describe(_ rule: CalendarComponents) -> String {
        let named = [("year", rule.year), ("month", rule.month), ("day", rule.day), ("weekday", rule.weekday),
                     ("hour", rule.hour), ("minute", rule.minute), ("second", rule.second)]
        return "{" + named.compactMap { name, value in value.map { "\(name): \($0)" } }.joined(separator: ", ") + "}"
    }

    /// Why Foundation's answer is later than the scheduler's (or absent).
    static func kind(of ours: Double, _ theirs: Double?, in zone: TimeZone) -> String {
        func offset(_ seconds: Double) -> Int { zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)) }
        if offset(ours - 1) < offset(ours) { return "the scheduler fires when a DST gap ends" }
        let shift = offset(ours - 86_400) - offset(ours)
        if shift > 0, offset(ours - Double(shift)) - shift == offset(ours) { return "the scheduler fires in an overlap's second pass" }
        return theirs == nil ? "Foundation finds no fire" : "Foundation fires later"
    }

    struct Tally {
        var compared = 0
        var agreed = 0
        var wrong = 0
        var missed: [String: Int] = [:]
        private var examples: [String] = []

        mutating func foundationMissed(_ kind: String, _ line: String) {
            missed[kind, default: 0] += 1
            if examples.count < 20 { examples.append("  \(kind): \(line)") }
        }

        var summary: String {
            let kinds = missed.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            return "\(compared) next fires compared, \(agreed) the same, Foundation later or none in "
                + "\(compared - agreed - wrong) (\(kinds.isEmpty ? "none" : kinds)), the scheduler wrong in \(wrong)\n"
                + examples.joined(separator: "\n")
        }
    }
}
