import Foundation
import ReplayKit
import Runtime
import Schema
import SchedulerKit

// The scheduler's calendar matcher against Foundation's `Calendar.nextDate` on the scheduler's load: a
// burst of repeating `date_components` requests due in the same second, each rescheduled to its next
// fire as it fires (`SchedulerHandler.fire` builds the trigger's schedule from the stored trigger and
// asks for the next occurrence). Rules are the common shapes (daily, weekly, monthly, hourly, yearly;
// no component left free between given ones, so one Foundation query answers each), in zones with and
// without daylight saving time. Rounds alternate the contenders so all see the same machine.

/// From flags; each property's initial value is its flag's default.
struct Settings: Options {
    var burst = 10_000
    var rounds = 5

    init() {}

    static let options: [Option<Settings>] = [
        .int("burst", \.burst, in: 1...10_000_000, help: "Repeating calendar requests due in the same second."),
        .int("rounds", \.rounds, in: 1...1_000, help: "Rounds timed for each matcher; the median is shown."),
    ]
}

let settings = Settings.parseOrExit(program: "bench-calendar",
                                    summary: "Benchmarks the scheduler's calendar matcher against Foundation's.")
let burst = settings.burst
let rounds = settings.rounds
let zones = ["UTC", "America/New_York", "Europe/London", "Europe/Berlin", "Asia/Shanghai", "Asia/Tokyo", "Asia/Kolkata",
             "Australia/Sydney", "Australia/Lord_Howe", "America/Santiago", "America/Sao_Paulo", "Pacific/Auckland"]
var random = SplitMix64(seed: 16)
let requests: [(CalendarComponents, String)] = (0..<burst).map { _ in
    let hour = Int.random(in: 0...23, using: &random), minute = Int.random(in: 0...11, using: &random) * 5
    let rule: CalendarComponents = switch Int.random(in: 0..<20, using: &random) {
    case 0..<8: CalendarComponents(hour: hour, minute: minute)
    case 8..<14: CalendarComponents(weekday: Int.random(in: 1...7, using: &random), hour: hour, minute: minute)
    case 14..<17: CalendarComponents(day: Int.random(in: 1...28, using: &random), hour: hour)
    case 17..<19: CalendarComponents(minute: minute)
    default: CalendarComponents(month: Int.random(in: 1...12, using: &random), day: Int.random(in: 1...28, using: &random), hour: hour)
    }
    return (rule, zones.randomElement(using: &random)!)
}
let due = 1_764_417_600.0  // 2025-11-29T12:00:00Z, the second the whole burst is due

func scheduler() -> [Double?] {
    requests.map { rule, zone in
        try? LocalTrigger(dateComponents: rule, repeats: true, timezone: zone).firstFire(after: due)
    }
}

/// Foundation's answer to the same question: `.nextTime` (a wall time in a gap fires when the gap ends) and
/// `.first` (a wall time shown twice fires the first time), the components the scheduler's rule fixes.
func foundation(_ calendar: Calendar, _ rule: CalendarComponents) -> Double? {
    var components = DateComponents()
    (components.month, components.day, components.weekday) = (rule.month, rule.day, rule.weekday)
    (components.hour, components.minute, components.second) = (rule.hour, rule.minute ?? 0, rule.second ?? 0)
    return calendar.nextDate(after: Date(timeIntervalSince1970: due), matching: components, matchingPolicy: .nextTime,
                             repeatedTimePolicy: .first, direction: .forward)?.timeIntervalSince1970
}

func gregorian(_ zone: String) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone)!
    return calendar
}

/// As the scheduler would call Foundation: a calendar for the trigger's zone each time, as it builds a schedule.
func foundationPerRequest() -> [Double?] {
    requests.map { rule, zone in foundation(gregorian(zone), rule) }
}

/// Foundation's best case: one calendar per zone, made before the clock starts.
let calendars = Dictionary(uniqueKeysWithValues: Set(zones).map { ($0, gregorian($0)) })
func foundationCached() -> [Double?] {
    requests.map { rule, zone in foundation(calendars[zone]!, rule) }
}

func timed(_ work: () -> [Double?]) -> (seconds: Double, fires: [Double?]) {
    let start = DispatchTime.now().uptimeNanoseconds
    let fires = work()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, fires)
}

let contenders: [(name: String, work: () -> [Double?])] = [
    ("scheduler (CalendarRule, ZoneRules)", scheduler),
    ("Foundation Calendar.nextDate, a calendar per request", foundationPerRequest),
    ("Foundation Calendar.nextDate, a calendar per zone", foundationCached),
]
var seconds = Array(repeating: [Double](), count: contenders.count)
var fires = Array(repeating: [Double?](), count: contenders.count)
for _ in 0..<rounds {
    for (index, contender) in contenders.enumerated() {
        let result = timed(contender.work)
        seconds[index].append(result.seconds)
        fires[index] = result.fires
    }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let ours = median(seconds[0])
print("burst of \(burst) repeating calendar requests due in one second, the next fire of each; median of \(rounds) rounds")
print("| matcher | burst ms | µs per next fire | next fires/s | time vs scheduler | same next fire as scheduler |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for (index, contender) in contenders.enumerated() {
    let time = median(seconds[index])
    let same = zip(fires[0], fires[index]).filter { $0 == $1 }.count
    print("| \(contender.name) | " + String(format: "%.1f | %.2f | %.0f | %.1f× | %d of %d |", time * 1000,
                 time / Double(burst) * 1e6, Double(burst) / time, time / ours, same, burst))
}
