import Bus
import Foundation
import JSON
import Runtime
import Schema
@testable import SchedulerKit

/// A scheduler handler on a temporary database with a hand-moved clock, driven as the worker
/// loop drives it: calls, ticks and bus events each in a write transaction.
final class SchedulerHarness {
    let clock: ManualClock
    let directory = TestPaths.temporaryDirectory("scheduler")
    let settings: SchedulerSettings
    private(set) var handler: SchedulerHandler

    var path: String { "\(directory)/scheduler.sqlite" }

    init(start: String = "2025-03-01T08:00:00Z", settings: SchedulerSettings = SchedulerSettings()) throws {
        clock = ManualClock(instant(start))
        self.settings = settings
        handler = try Self.open("\(directory)/scheduler.sqlite", settings, clock)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    private static func open(_ path: String, _ settings: SchedulerSettings, _ clock: ManualClock) throws -> SchedulerHandler {
        try SchedulerHandler(path: path, settings: settings, logger: Logger(label: "scheduler", level: .critical),
                             clock: { clock.now })
    }

    /// Closes the handler and opens a new one on the same database, as a restarted process would.
    func restart() throws {
        handler = try Self.open(path, settings, clock)
    }

    /// `local.*` and `location.report` for device `r1` of app `app1`, plus `extra` fields.
    func call(_ command: String, _ extra: [String: JSONValue] = [:], device: String = "r1", app: String = "app1") -> JSONValue {
        reply(handler, command, ["app_key": app.json, "registration_id": device.json].merging(extra) { $1 })
    }

    func add(_ identifier: String, _ trigger: JSONValue, body: String = "hello", device: String = "r1") -> JSONValue {
        call("local.add", ["identifier": identifier.json, "content": .object(["body": body.json]), "trigger": trigger],
             device: device)
    }

    /// `local.find` and the identifiers of the list asked for.
    func found(_ delivered: Bool, device: String = "r1") -> [String] {
        let key = delivered ? "notifications" : "requests"
        guard case .array(let items) = call("local.find", ["delivered": .bool(delivered)], device: device)[key] ?? .null
        else { return [] }
        return items.compactMap { $0["identifier"]?.string }
    }

    /// Runs the tick the worker loop would run now, if the handler wants one.
    func tick() throws {
        guard let due = handler.nextTick(), due.timeIntervalSince1970 <= clock.now else { return }
        try handler.storage.store.write { db in try handler.tick(now: Date(timeIntervalSince1970: clock.now), in: db) }
    }

    /// Ticks until the handler has nothing due now.
    func tickUntilIdle() throws {
        for _ in 0..<100 {
            guard let due = handler.nextTick(), due.timeIntervalSince1970 <= clock.now else { return }
            try tick()
        }
    }

    func advance(_ seconds: Double) { clock.advance(seconds) }

    /// Applies a bus event as the worker loop does.
    func apply<Body: EventBody>(_ body: Body) throws {
        let event = Event(publisher: "registration", sequence: 1, time: "2025-03-01T08:00:00Z", body: body)
        try handler.storage.store.write { db in try handler.apply(BusEvent(event), in: db) }
    }

    /// The `local.fired` events committed since the last call.
    func fired() throws -> [LocalFiredEvent] {
        try handler.storage.outbox.takeCommitted().filter { $0.topic == "local.fired" }.map {
            try JSONDecoder().decode(Event<LocalFiredEvent>.self, from: $0.event).body
        }
    }
}

/// JSON for a trigger, as a client writes it.
enum TriggerJSON {
    static func interval(_ seconds: Double, repeats: Bool = false) -> JSONValue {
        .object(["time_interval": .number(seconds), "repeat": .bool(repeats)])
    }

    static func fireDate(_ text: String) -> JSONValue { .object(["fire_date": text.json]) }

    static func calendar(_ components: [String: Int], repeats: Bool = false, timezone: String? = nil) -> JSONValue {
        var trigger: [String: JSONValue] = [
            "date_components": .object(components.mapValues { .number(Double($0)) }), "repeat": .bool(repeats),
        ]
        if let timezone { trigger["timezone"] = timezone.json }
        return .object(trigger)
    }

    static func region(_ latitude: Double, _ longitude: Double, radius: Double, repeats: Bool = false) -> JSONValue {
        .object(["region": .object(["latitude": .number(latitude), "longitude": .number(longitude),
                                    "radius": .number(radius), "repeat": .bool(repeats)])])
    }
}
