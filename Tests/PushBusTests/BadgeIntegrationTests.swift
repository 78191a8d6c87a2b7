import Client
import Foundation
import JSON
import Schema
import Testing
import ZeroMQ

/// The real `gateway`, `registration` and `badge` executables over TCP, through `device` routing.
@Suite("badge (integration)", .serialized)
struct BadgeIntegrationTests {
    @Test func everyBadgeRuleThroughTheGateway() throws {
        let stack = try TestStack().start(["registration", "badge"])
        let client = try stack.client()
        let ids = try client.registerKnownToBadge(4)
        let (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3])

        #expect(try client.badgeSet(a, 0)["value"] == .number(0))
        #expect(try client.badgeSet(a, 99_999)["value"] == .number(99_999))
        #expect(try client.badgeSet(a, -1).code == 6017)
        #expect(try client.badgeSet(a, 100_000).code == 6017)
        #expect(try client.badgeValue(a) == 99_999, "a refused set stores nothing")
        #expect(try client.json("badge.reset", ["app_key": "app1".json, "registration_id": a.json])["value"] == .number(0))
        #expect(try client.badgeValue(a) == 0)
        #expect(try client.badgeValue(b) == 0, "never set reads 0")
        #expect(try client.json("badge.get", ["app_key": "app1".json, "registration_id": b.json, "seq": .number(77)])["seq"]
                == .number(77))

        #expect(try client.badgeApply([a, b], "7", msgID: "set-7")["values"] == .object([a: .number(7), b: .number(7)]))
        #expect(try client.badgeApply([a, b], "+2", msgID: "up-2").badge(a) == 9)
        #expect(try client.badgeApply([a, b], "-3", msgID: "down-3").badge(b) == 6)

        #expect(try client.badgeSet(c, 99_999).code == 0)
        #expect(try client.badgeApply([c, d], "+1", msgID: "clamp-up")["values"] == .object([c: .number(99_999), d: .number(1)]))
        #expect(try client.badgeApply([c, d], "-99", msgID: "clamp-down")["values"] == .object([c: .number(99_900), d: .number(0)]))

        #expect(try client.badgeApply([a], "+1", msgID: "twice").badge(a) == 7)
        #expect(try client.badgeApply([a], "+1", msgID: "twice").badge(a) == 7, "the retried push changes nothing")
        #expect(try client.badgeValue(a) == 7)
        #expect(try client.badgeApply([a], "+5", msgID: "twice").code == 6017, "a msg_id keeps its badge")

        let stranger = "ffffffffffffffffffff"
        let mixed = try client.badgeApply([stranger, a], "+1", msgID: "mixed")
        #expect(mixed["values"] == .object([a: .number(8)]))
        #expect(mixed.strings("unknown") == [stranger])
        #expect(try client.badgeApply((0..<1001).map { _ in a }, "+1", msgID: "too-many").code == 6017)
        #expect(try client.badgeApply([a], "+100", msgID: "too-big").code == 6017)
        #expect(try client.json("badge.apply", ["app_key": "app1".json, "badge": "+1".json, "msg_id": "m".json]).code == 6001)
        #expect(try client.badgeValue(a) == 8)
    }

    @Test func concurrentAppliesFromSeveralClientsLoseNoIncrement() throws {
        let stack = try TestStack().start(["registration", "badge"])
        let ids = try stack.client().registerKnownToBadge(20)
        let clients = 4, pushes = 25
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: clients) { n in
            do {
                let client = try stack.client()
                for push in 0..<pushes {
                    // Every push is sent twice, as a pusher retrying after a lost reply would.
                    for _ in 0..<2 {
                        let reply = try client.badgeApply(ids, "+1", msgID: "client\(n)-push\(push)")
                        if reply.code != 0 { failures.add("client \(n): \(reply)") }
                    }
                }
            } catch {
                failures.add("client \(n): \(error)")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let client = try stack.client()
        for id in ids { #expect(try client.badgeValue(id) == clients * pushes) }
    }

    @Test func acknowledgedBadgesAndPushesSurviveAKilledService() throws {
        let stack = try TestStack().start(["registration", "badge"])
        let client = try stack.client()
        let ids = try client.registerKnownToBadge(2)
        #expect(try client.badgeSet(ids[0], 41).code == 0)
        #expect(try client.badgeApply(ids, "+1", msgID: "before-crash").code == 0)
        stack.services["badge"]?.kill()
        try stack.waitForServiceGone("badge")
        try stack.startService("badge")
        #expect(try client.badgeValue(ids[0]) == 42)
        #expect(try client.badgeApply(ids, "+1", msgID: "before-crash")["values"] == .object([ids[0]: .number(42), ids[1]: .number(1)]),
                "the push applied before the crash is still remembered")
        #expect(try client.badgeValue(ids[1]) == 1)
    }

    @Test func aDeletedDeviceIsForgotten() throws {
        let stack = try TestStack().start(["registration", "badge"])
        let client = try stack.client()
        let id = try client.registerKnownToBadge(1)[0]
        #expect(try client.badgeSet(id, 5).code == 0)
        #expect(try client.json("device.delete", ["app_key": "app1".json, "registration_id": id.json]).code == 0)
        let deadline = Date().addingTimeInterval(10)
        while try client.badgeGet(id).code == 0 && Date() < deadline { usleep(20_000) }
        #expect(try client.badgeGet(id)["message"]?.string == "device deleted", "the deleted device's proofs are refused")
        #expect(try client.badgeSet(id, 1).code == 1008)
        #expect(try eventually { try client.badgeApply([id], "+1", msgID: "after-delete-\(UUID())").strings("unknown") == [id] },
                "device.deleted reached the badge service")
    }

    @Test func setBadgeRightAfterRegisteringIsAccepted() throws {
        let stack = try TestStack().start(["registration", "badge"])
        let client = try stack.client()
        _ = try client.registerKnownToBadge(1)
        let id = try client.register()
        #expect(try client.badgeSet(id, 3).code == 0, "no wait for device.registered to reach the badge service")
        #expect(try client.badgeValue(id) == 3)
        #expect(try client.badgeKnows([id]))
        #expect(try client.badgeApply([id], "+1", msgID: "first-push").badge(id) == 4)
    }

    @Test func badgeChangesArePublishedOnTheBus() throws {
        let stack = try TestStack().start(["registration", "badge"])
        let client = try stack.client()
        let id = try client.registerKnownToBadge(1)[0]
        let subscriber = try Socket.sub(stack.context, connect: stack.eventsOut, topics: ["badge.changed"])
        var poller = Poller([subscriber])

        // The subscription reaches the bus asynchronously: change the badge until an event shows.
        var previous: Event<BadgeChangedEvent>?
        for value in 1...50 where previous == nil {
            #expect(try client.badgeSet(id, value).code == 0)
            if try poller.poll(timeout: 200).contains(subscriber), let message = try subscriber.receive() {
                previous = try JSONDecoder().decode(Event<BadgeChangedEvent>.self, from: message[1])
            }
        }
        while try poller.poll(timeout: 300).contains(subscriber), let message = try subscriber.receive() {
            previous = try JSONDecoder().decode(Event<BadgeChangedEvent>.self, from: message[1])
        }
        let pushed = try client.badgeApply([id], "55", msgID: "bus")
        #expect(pushed.code == 0, "\(pushed)")
        let message = try #require(try poller.poll(timeout: 3000).contains(subscriber) ? subscriber.receive() : nil)
        #expect(message.frames[0] == Data("badge.changed".utf8))
        let event = try JSONDecoder().decode(Event<BadgeChangedEvent>.self, from: message.frames[1])
        #expect(event.body == BadgeChangedEvent(appKey: "app1", registrationID: id, value: 55))
        #expect(event.publisher == "badge")
        #expect(event.sequence == (previous?.sequence ?? 0) + 1)
    }
}

/// Errors gathered from several threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ failure: String) { lock.withLock { items.append(failure) } }
    var all: [String] { lock.withLock { items } }
}

extension MajordomoClient {
    func badgeSet(_ id: String, _ value: Int) throws -> JSONValue {
        try json("badge.set", ["app_key": "app1".json, "registration_id": id.json, "value": .number(Double(value))])
    }

    func badgeGet(_ id: String) throws -> JSONValue {
        try json("badge.get", ["app_key": "app1".json, "registration_id": id.json])
    }

    func badgeValue(_ id: String) throws -> Int? { try badgeGet(id)["value"]?.number.map { Int($0) } }

    func badgeApply(_ ids: [String], _ badge: String, msgID: String) throws -> JSONValue {
        try json("badge.apply", ["app_key": "app1".json, "registration_ids": .array(ids.map(\.json)),
                                 "badge": badge.json, "msg_id": msgID.json])
    }

    /// Whether the badge service knows every ID, asked with a push that changes nothing (`"+0"`).
    func badgeKnows(_ ids: [String]) throws -> Bool {
        try badgeApply(ids, "+0", msgID: "probe-\(UUID().uuidString)").strings("unknown") == []
    }

    /// Registers `count` devices (app1) and returns once the badge service knows them all.
    /// `device.registered` reaches the badge service over the bus a moment after registration answers,
    /// and right after a start, before its subscription is in place, not at all: so first register one
    /// device at a time until one is known, then the rest, and wait for them.
    func registerKnownToBadge(_ count: Int) throws -> [String] {
        let deadline = Date().addingTimeInterval(30)
        var live = false
        while !live && Date() < deadline {
            let probe = try register()
            let attempt = Date().addingTimeInterval(1)
            while !live && Date() < attempt {
                live = try badgeKnows([probe])
                if !live { usleep(20_000) }
            }
        }
        guard live else { throw StackError("the badge service never heard of a registered device") }
        let ids = try (0..<count).map { _ in try register() }
        while try !badgeKnows(ids) {
            guard Date() < deadline else { throw StackError("the badge service did not hear of \(ids)") }
            usleep(20_000)
        }
        return ids
    }
}
