import Credentials
import Foundation
import JSON
import SQLite
import Schema
import Testing
import Worker
@testable import SchedulerKit

/// The timer: firing on time, repeating, restarts, regions and what the bus tells the scheduler.
@Suite("scheduler handler: firing")
struct SchedulerFiringTests {
    let harness: SchedulerHarness

    init() throws { harness = try SchedulerHarness() }

    @Test func aDueRequestFiresPublishesItsContentAndMovesToDelivered() throws {
        _ = harness.add("soon", TriggerJSON.interval(5), body: "tea time")
        #expect(harness.handler.nextTick() == Date(timeIntervalSince1970: instant("2025-03-01T08:00:05Z")))
        harness.advance(4.9)
        try harness.tickUntilIdle()
        #expect(try harness.fired().isEmpty, "nothing fires early")

        harness.advance(0.1)
        try harness.tickUntilIdle()
        let fired = try harness.fired()
        #expect(fired == [LocalFiredEvent(appKey: "app1", registrationID: "r1", identifier: "soon",
                                          content: LocalContent(body: "tea time"), firedAt: "2025-03-01T08:00:05Z")])
        #expect(harness.found(false).isEmpty)
        let delivered = try #require(harness.call("local.find", ["delivered": .bool(true)])["notifications"]?.arrayValue?.first)
        #expect(delivered["fired_at"] == "2025-03-01T08:00:05Z".json)
        #expect(delivered["due_at"] == "2025-03-01T08:00:05Z".json)
        #expect(delivered["missed"] == nil)
        #expect(harness.handler.nextTick() == nil, "nothing left to fire")
    }

    @Test func aRepeatingRequestIsRescheduledAndDeliveredOnceEachTime() throws {
        _ = harness.add("minutely", TriggerJSON.interval(60, repeats: true))
        for _ in 0..<3 {
            harness.advance(60)
            try harness.tickUntilIdle()
        }
        let fired = try harness.fired()
        #expect(fired.map(\.firedAt) == ["2025-03-01T08:01:00Z", "2025-03-01T08:02:00Z", "2025-03-01T08:03:00Z"])
        #expect(fired.map(\.nextFireAt) == ["2025-03-01T08:02:00Z", "2025-03-01T08:03:00Z", "2025-03-01T08:04:00Z"])
        #expect(harness.found(false) == ["minutely"], "still pending")
        #expect(harness.found(true) == ["minutely"], "the latest delivery replaces the one before, as iOS shows it")
    }

    @Test func aCalendarRequestFiresOnItsWeekdays() throws {
        _ = harness.add("monday", TriggerJSON.calendar(["weekday": 2, "hour": 8], repeats: true, timezone: "Asia/Shanghai"))
        harness.advance(instant("2025-03-10T00:00:00Z") - harness.clock.now)
        try harness.tickUntilIdle()
        #expect(try harness.fired().map(\.firedAt) == ["2025-03-10T00:00:00Z"],
                "one fire for two Mondays passed: the first is beyond the one-hour lateness")
        let next = harness.call("local.find", ["delivered": .bool(false)])["requests"]?.arrayValue?.first?["next_fire_at"]
        #expect(next == "2025-03-17T00:00:00Z".json)
    }

    @Test func deliveredHistoryKeepsTheNewest() throws {
        let harness = try SchedulerHarness(settings: SchedulerSettings { $0.deliveredHistory = 3 })
        for index in 1...5 { _ = harness.add("n\(index)", TriggerJSON.interval(Double(index))) }
        harness.advance(5)
        try harness.tickUntilIdle()
        #expect(try harness.fired().count == 5)
        #expect(harness.found(true) == ["n3", "n4", "n5"])
    }

    @Test func aBurstDueInTheSameSecondFiresInFewTicks() throws {
        for device in 0..<50 {
            for index in 0..<60 { _ = harness.add("n\(index)", TriggerJSON.fireDate("2025-03-01T08:00:10Z"), device: "d\(device)") }
        }
        harness.advance(10)
        var ticks = 0
        while let due = harness.handler.nextTick(), due.timeIntervalSince1970 <= harness.clock.now {
            try harness.tick()
            ticks += 1
        }
        #expect(try harness.fired().count == 3_000)
        #expect(ticks <= 7, "500 per tick, then one tick to confirm the commit")
    }

    // MARK: restarts

    @Test func aRestartedSchedulerFiresWhatItMissedOnce() throws {
        _ = harness.add("once", TriggerJSON.interval(10))
        _ = harness.add("later", TriggerJSON.interval(7200))
        harness.advance(1800)
        try harness.restart()
        #expect(harness.handler.queuedTimers == 2, "loaded from the database")
        try harness.tickUntilIdle()
        try harness.tickUntilIdle()
        #expect(try harness.fired().map(\.identifier) == ["once"])
        #expect(harness.found(false) == ["later"])
        try harness.restart()
        try harness.tickUntilIdle()
        #expect(try harness.fired().isEmpty, "fired once, not again after another restart")
    }

    @Test func aOneShotMissedLongerThanTheLatenessIsMarkedMissed() throws {
        _ = harness.add("stale", TriggerJSON.fireDate("2025-03-01T08:10:00Z"))
        harness.advance(600 + 3600 + 1)
        try harness.restart()
        try harness.tickUntilIdle()
        #expect(try harness.fired().isEmpty)
        #expect(harness.found(false).isEmpty)
        let missed = try #require(harness.call("local.find", ["delivered": .bool(true)])["notifications"]?.arrayValue?.first)
        #expect(missed["identifier"] == "stale".json)
        #expect(missed["missed"] == .bool(true))
        #expect(missed["due_at"] == "2025-03-01T08:10:00Z".json)
        #expect(missed["fired_at"] == nil)
    }

    @Test func theLatenessIsASetting() throws {
        let strict = try SchedulerHarness(settings: SchedulerSettings { $0.lateness = 60 })
        _ = strict.add("a", TriggerJSON.interval(10))
        _ = strict.add("b", TriggerJSON.interval(100))
        strict.advance(150)
        try strict.tickUntilIdle()
        #expect(try strict.fired().map(\.identifier) == ["b"], "a is 140 s late, b 50 s")
        #expect(strict.call("local.find", ["delivered": .bool(true)])["notifications"]?.arrayValue?.first?["missed"] == .bool(true))
    }

    @Test func aRepeatingRequestMissedManyTimesFiresOnceThenGoesOnFromNow() throws {
        _ = harness.add("minutely", TriggerJSON.interval(60, repeats: true))
        harness.advance(600.5)
        try harness.restart()
        try harness.tickUntilIdle()
        let fired = try harness.fired()
        #expect(fired.count == 1)
        #expect(fired.first?.nextFireAt == "2025-03-01T08:11:00Z", "the next turn after now, in phase")
        try harness.tickUntilIdle()
        #expect(try harness.fired().isEmpty)
    }

    @Test func aRepeatingRequestWithNoTurnInTheLatenessWindowWaitsForItsNext() throws {
        _ = harness.add("daily", TriggerJSON.calendar(["hour": 9], repeats: true, timezone: "UTC"))
        harness.advance(instant("2025-03-01T12:00:00Z") - harness.clock.now)
        try harness.restart()
        try harness.tickUntilIdle()
        #expect(try harness.fired().isEmpty, "09:00 is three hours ago")
        #expect(harness.call("local.find", ["delivered": .bool(false)])["requests"]?.arrayValue?.first?["next_fire_at"]
                == "2025-03-02T09:00:00Z".json)
    }

    @Test func aTickWhoseTransactionRollsBackFiresAgainNextTick() throws {
        struct Crash: Error {}
        _ = harness.add("fragile", TriggerJSON.interval(5))
        harness.advance(5)
        let handler = harness.handler
        let now = Date(timeIntervalSince1970: harness.clock.now)
        #expect(throws: Crash.self) { try handler.storage.store.write { db in try handler.tick(now: now, in: db); throw Crash() } }
        #expect(try harness.fired().isEmpty, "nothing committed")
        try harness.tickUntilIdle()
        #expect(try harness.fired().map(\.identifier) == ["fragile"])
        try harness.tickUntilIdle()
        #expect(try harness.fired().isEmpty)
    }

    @Test func staleTimersAreDroppedByAReload() throws {
        _ = harness.add("kept", TriggerJSON.interval(86_400))
        try harness.handler.storage.store.write { _ in
            for index in 0...FireTimer.staleFloor { _ = harness.add("moving", TriggerJSON.interval(Double(1000 + index))) }
        }
        #expect(harness.handler.queuedTimers == FireTimer.staleFloor + 2)
        try harness.tick()
        #expect(harness.handler.queuedTimers == 2)
        harness.advance(Double(1000 + FireTimer.staleFloor))
        try harness.tickUntilIdle()
        #expect(try harness.fired().map(\.identifier) == ["moving"])
        harness.advance(86_400 - Double(1000 + FireTimer.staleFloor))
        try harness.tickUntilIdle()
        #expect(try harness.fired().map(\.identifier) == ["kept"])
    }

    // MARK: regions

    @Test func aRegionFiresWhenALocationReportEntersIt() throws {
        _ = harness.add("office", TriggerJSON.region(37.3354, -122.009201, radius: 2000))
        let outside = harness.call("location.report", ["latitude": .number(37.5), "longitude": .number(-122.0)])
        #expect(outside["fired"] == .array([]))
        let inside = harness.call("location.report", ["latitude": .number(37.336), "longitude": .number(-122.01)])
        #expect(inside["fired"] == .array(["office".json]))
        #expect(try harness.fired().map(\.identifier) == ["office"])
        #expect(harness.found(false).isEmpty, "a one-shot region is done")
        #expect(harness.found(true) == ["office"])
        #expect(harness.call("location.report", ["latitude": .number(37.336), "longitude": .number(-122.01)])["fired"] == .array([]))
    }

    @Test func aRepeatingRegionFiresOnEveryCrossing() throws {
        _ = harness.add("home", TriggerJSON.region(48.8566, 2.3522, radius: 500, repeats: true))
        func report(_ latitude: Double) -> JSONValue {
            harness.call("location.report", ["latitude": .number(latitude), "longitude": .number(2.3522)])["fired"] ?? .null
        }
        #expect(report(48.8566) == .array(["home".json]), "enter")
        #expect(report(48.8567) == .array([]), "still inside")
        #expect(report(48.87) == .array(["home".json]), "exit")
        #expect(report(48.88) == .array([]), "still outside")
        #expect(report(48.8566) == .array(["home".json]), "enter again")
        #expect(try harness.fired().count == 3)
        #expect(harness.found(false) == ["home"])
    }

    // MARK: the bus

    @Test func aDeletedDeviceIsForgotten() throws {
        _ = harness.add("a", TriggerJSON.interval(5))
        _ = harness.add("b", TriggerJSON.interval(1))
        _ = harness.add("c", TriggerJSON.interval(5), device: "r2")
        harness.advance(1)
        try harness.tickUntilIdle()
        _ = try harness.fired()
        try harness.apply(DeviceDeletedEvent(appKey: "app1", registrationID: "r1"))
        #expect(harness.found(false).isEmpty && harness.found(true).isEmpty)
        harness.advance(10)
        try harness.tickUntilIdle()
        #expect(try harness.fired().map(\.registrationID) == ["r2"], "the deleted device's timer is dropped")
        #expect(harness.call("local.find", [:], app: "app2").code == 0, "the device may come back under another app")
    }

    @Test func aDeletedDeviceGetsNoNewRequestWhoeverSigns() throws {
        _ = harness.add("a", TriggerJSON.interval(5))
        try harness.handler.storage.store.write { db in try Tombstones.record(db, registrationID: "r1") }   // as the worker's event subscription does
        try harness.apply(DeviceDeletedEvent(appKey: "app1", registrationID: "r1"))
        let added = reply(harness.handler, "local.add", ["app_key": "app1".json, "registration_id": "r1".json, "identifier": "b".json,
                                                        "content": .object(["body": "hi".json]), "trigger": TriggerJSON.interval(5)],
                          principal: .app(appKey: "app1"))
        #expect(added.code == 1008 && added["message"] == "device deleted".json, "\(added)")
        #expect(harness.found(false).isEmpty)
        harness.advance(10)
        try harness.tickUntilIdle()
        #expect(try harness.fired().isEmpty)
    }

    @Test func aNewDeviceTimeZoneMovesCalendarTriggersWithoutTheirOwn() throws {
        _ = harness.add("device-zone", TriggerJSON.calendar(["hour": 9], repeats: true))
        _ = harness.add("own-zone", TriggerJSON.calendar(["hour": 9], repeats: true, timezone: "Europe/Paris"))
        func nextFires() -> [String: String] {
            let requests = harness.call("local.find", ["delivered": .bool(false)])["requests"]?.arrayValue ?? []
            return Dictionary(uniqueKeysWithValues: requests.compactMap { request in
                request["identifier"]?.string.map { ($0, request["next_fire_at"]?.string ?? "") }
            })
        }
        #expect(nextFires() == ["device-zone": "2025-03-01T09:00:00Z", "own-zone": "2025-03-02T08:00:00Z"],
                "no device zone known yet: UTC")
        try harness.apply(DeviceUpdatedEvent(appKey: "app1", registrationID: "r1", timezone: "Asia/Tokyo"))
        #expect(nextFires() == ["device-zone": "2025-03-02T00:00:00Z", "own-zone": "2025-03-02T08:00:00Z"])
        try harness.apply(DeviceUpdatedEvent(appKey: "app1", registrationID: "r1", language: "ja"))
        #expect(nextFires()["device-zone"] == "2025-03-02T00:00:00Z", "a language change moves nothing")
        #expect(harness.add("new", TriggerJSON.calendar(["hour": 9]))["next_fire_at"] == "2025-03-02T00:00:00Z".json,
                "later requests read the device's zone")

        harness.advance(instant("2025-03-02T00:00:00Z") - harness.clock.now)
        try harness.tickUntilIdle()
        #expect(try harness.fired().map(\.identifier).sorted() == ["device-zone", "new"], "not at 09:00 UTC the day before")
    }
}
