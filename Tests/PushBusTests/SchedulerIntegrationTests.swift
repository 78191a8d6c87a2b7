import Client
import Foundation
import JSON
import Runtime
import Schema
import SQLite
import Testing
import WireTime
import ZeroMQ

/// The real `gateway`, `registration` and `scheduler` executables over TCP, through `device` routing.
@Suite("scheduler (integration)", .serialized)
struct SchedulerIntegrationTests {
    /// A registered device and calls on its behalf; it holds the stack, whose processes live as long as it.
    struct Device {
        let stack: TestStack
        let client: MajordomoClient
        let id: String
        let appKey = "app1"

        init(_ stack: TestStack) throws {
            self.stack = stack
            client = try stack.client()
            id = try client.register()
        }

        func call(_ command: String, _ extra: [String: JSONValue] = [:]) throws -> JSONValue {
            try client.json(command, ["app_key": appKey.json, "registration_id": id.json].merging(extra) { $1 })
        }

        func add(_ identifier: String, _ trigger: JSONValue, body: String = "hi") throws -> JSONValue {
            try call("local.add", ["identifier": identifier.json, "content": .object(["body": body.json]), "trigger": trigger])
        }

        func identifiers(delivered: Bool) throws -> [String] {
            let key = delivered ? "notifications" : "requests"
            return try call("local.find", ["delivered": .bool(delivered)])[key]?.arrayValue?.compactMap { $0["identifier"]?.string } ?? []
        }
    }

    /// Collects `local.fired` events from the bus.
    final class FiredListener {
        let socket: Socket
        var received: [LocalFiredEvent] = []

        init(_ stack: TestStack) throws {
            socket = try Socket.sub(stack.context, connect: stack.eventsOut, topics: ["local.fired"])
        }

        deinit { socket.close() }

        /// Waits up to `seconds` for an event matching `predicate`.
        func wait(_ seconds: Double, for predicate: (LocalFiredEvent) -> Bool) throws -> LocalFiredEvent? {
            if let seen = received.first(where: predicate) { return seen }
            let deadline = Date().addingTimeInterval(seconds)
            var poller = Poller([socket])
            while Date() < deadline {
                guard try poller.poll(timeout: 100).contains(socket), let message = try socket.receive() else { continue }
                let event = try JSONDecoder().decode(Event<LocalFiredEvent>.self, from: message[1]).body
                received.append(event)
                if predicate(event) { return event }
            }
            return nil
        }

        /// Subscriptions reach the publisher asynchronously: fires quick probes until one arrives.
        func waitUntilSubscribed(_ device: Device) throws {
            for attempt in 0..<50 {
                _ = try device.add("probe-\(attempt)", TriggerJSON.interval(0.05))
                if try wait(0.3, for: { $0.identifier.hasPrefix("probe-") }) != nil { return }
            }
            throw StackError("no local.fired event reached the test's subscriber")
        }
    }

    /// A stack with a registered device and a `local.fired` subscriber the scheduler already reaches.
    func startWithListener() throws -> (Device, FiredListener) {
        let device = try Device(try TestStack().start(["registration", "scheduler"]))
        let listener = try FiredListener(device.stack)
        try listener.waitUntilSubscribed(device)
        return (device, listener)
    }

    @Test func addUpdateFindAndRemoveInBothLists() throws {
        let device = try Device(try TestStack().start(["registration", "scheduler"]))
        let listener = try FiredListener(device.stack)

        let added = try device.call("local.add", ["identifier": "weekly".json, "seq": .number(7),
                                                  "content": .object(["title": "Standup".json]),
                                                  "trigger": TriggerJSON.calendar(["weekday": 2, "hour": 8], repeats: true,
                                                                                  timezone: "Asia/Shanghai")])
        #expect(added.code == 0)
        #expect(added["seq"] == .number(7))
        #expect(added["identifier"] == "weekly".json)
        let updated = try device.add("weekly", TriggerJSON.calendar(["weekday": 3, "hour": 8], repeats: true,
                                                                    timezone: "Asia/Shanghai"), body: "moved")
        #expect(updated.code == 0)
        #expect(updated["next_fire_at"] != added["next_fire_at"])
        let pending = try #require(try device.call("local.find", ["delivered": .bool(false)])["requests"]?.arrayValue)
        #expect(pending.count == 1)
        #expect(pending.first?["content"]?["body"] == "moved".json)
        #expect(pending.first?["trigger"]?["date_components"]?["weekday"] == .number(3))

        try listener.waitUntilSubscribed(device)
        #expect(try device.add("quick", TriggerJSON.interval(0.2)).code == 0)
        #expect(try listener.wait(10) { $0.identifier == "quick" } != nil)
        #expect(try eventually { try device.identifiers(delivered: true).contains("quick") })
        #expect(try device.identifiers(delivered: false) == ["weekly"])

        let removedDelivered = try device.call("local.remove", ["identifiers": .array(["quick".json]), "delivered": .bool(true)])
        #expect(removedDelivered["removed"] == .array(["quick".json]))
        #expect(try !device.identifiers(delivered: true).contains("quick"))
        let removedPending = try device.call("local.remove", ["identifiers": .array([]), "delivered": .bool(false)])
        #expect(removedPending["removed"] == .array(["weekly".json]))
        #expect(try device.identifiers(delivered: false).isEmpty)
        #expect(try device.add("past", TriggerJSON.fireDate("2020-01-01T00:00:00Z")).code == 6101)
        #expect(try device.call("local.find").code == 0)
        #expect(try device.client.json("local.find", ["app_key": "app2".json, "registration_id": device.id.json]).code == 1008)
    }

    @Test func aTwoSecondIntervalFiresAndItsEventArrivesOnTheBus() throws {
        let (device, listener) = try startWithListener()

        let added = try device.call("local.add", ["identifier": "two-seconds".json,
                                                  "content": .object(["title": "Tea".json, "badge": .number(3),
                                                                      "user_info": .object(["cup": .number(2)])]),
                                                  "trigger": TriggerJSON.interval(2)])
        let due = try #require(added["next_fire_at"]?.string.flatMap(RFC3339.date(from:)))
        let event = try #require(try listener.wait(15) { $0.identifier == "two-seconds" })
        #expect(event.registrationID == device.id)
        #expect(event.appKey == "app1")
        #expect(event.content == LocalContent(title: "Tea", badge: 3, userInfo: ["cup": .number(2)]))
        #expect(event.nextFireAt == nil)
        let firedAt = try #require(RFC3339.date(from: event.firedAt))
        #expect(firedAt >= due, "not before it was due")
        #expect(try device.identifiers(delivered: true).contains("two-seconds"))
        #expect(try !device.identifiers(delivered: false).contains("two-seconds"))
    }

    @Test func aRegionFiresOnALocationReportInsideIt() throws {
        let (device, listener) = try startWithListener()

        #expect(try device.add("engagelab", TriggerJSON.region(37.335400, -122.009201, radius: 2000)).code == 0)
        let far = try device.call("location.report", ["latitude": .number(40.7128), "longitude": .number(-74.006)])
        #expect(far["fired"] == .array([]))
        let near = try device.call("location.report", ["latitude": .number(37.3400), "longitude": .number(-122.0100)])
        #expect(near["fired"] == .array(["engagelab".json]))
        let event = try #require(try listener.wait(10) { $0.identifier == "engagelab" })
        #expect(event.registrationID == device.id)
        #expect(try device.identifiers(delivered: true).contains("engagelab"))
    }

    @Test func aStoppedAndRestartedSchedulerFiresWhatItMissedExactlyOnce() throws {
        let device = try Device(try TestStack().start(["registration", "scheduler"]))
        let stack = device.stack
        let due = Date().addingTimeInterval(3).timeIntervalSince1970.rounded(.up)
        let dueText = RFC3339.string(from: Date(timeIntervalSince1970: due))
        #expect(try device.add("while-down", TriggerJSON.fireDate(dueText)).code == 0)
        #expect(try device.add("tomorrow", TriggerJSON.interval(86_400)).code == 0)

        #expect(stack.services["scheduler"]?.terminate() == 0, "a clean stop")
        try stack.waitForServiceGone("scheduler")
        while Date().timeIntervalSince1970 <= due + 0.5 { usleep(100_000) }
        try stack.startService("scheduler")

        #expect(try eventually { try device.identifiers(delivered: true) == ["while-down"] })
        let delivered = try #require(try device.call("local.find", ["delivered": .bool(true)])["notifications"]?.arrayValue?.first)
        #expect(delivered["due_at"] == dueText.json)
        #expect(delivered["missed"] == nil)
        let firedAt = try #require(delivered["fired_at"]?.string)
        #expect(try device.identifiers(delivered: false) == ["tomorrow"])

        stack.services["scheduler"]?.kill()
        try stack.waitForServiceGone("scheduler")
        try stack.startService("scheduler")
        let again = try device.call("local.find", ["delivered": .bool(true)])["notifications"]?.arrayValue?.first
        #expect(again?["fired_at"]?.string == firedAt, "not fired a second time after another restart")
        #expect(try device.identifiers(delivered: false) == ["tomorrow"])
        let outbox = try Database(path: "\(stack.dataDirectory)/scheduler.sqlite")
        let published = try outbox.value("""
            SELECT COUNT(*) FROM outbox WHERE topic = 'local.fired' AND CAST(event AS TEXT) LIKE '%"identifier":"while-down"%'
            """).int
        #expect(published == 1, "one local.fired event in the scheduler's outbox")
        let log = stack.services["scheduler"]?.output ?? ""
        #expect(!log.contains("error"), "\(log)")
    }

    @Test func deletedDevicesAreForgottenAndTimeZonesFollowed() throws {
        let device = try Device(try TestStack().start(["registration", "scheduler"]))
        let added = try device.add("nine", TriggerJSON.calendar(["hour": 9], repeats: true))
        let utcNine = try #require(added["next_fire_at"]?.string)
        #expect(utcNine.hasSuffix("T09:00:00Z"), "no zone known yet: UTC")

        // The scheduler's subscription reaches registration asynchronously: update until it moves.
        var moved = false
        for zone in Array(repeating: ["Asia/Tokyo", "Asia/Seoul"], count: 50).joined() where !moved {
            #expect(try device.call("device.update", ["timezone": zone.json]).code == 0)
            moved = try eventually(0.3) {
                try device.call("local.find", ["delivered": .bool(false)])["requests"]?.arrayValue?.first?["next_fire_at"]?
                    .string?.hasSuffix("T00:00:00Z") == true
            }
        }
        #expect(moved, "09:00 in Tokyo or Seoul is 00:00 UTC")

        #expect(try device.call("device.delete").code == 0)
        #expect(try eventually { try device.identifiers(delivered: false).isEmpty })
    }
}
