import Bus
import Client
import Credentials
import Foundation
import Majordomo
import Runtime
import Schema
import Testing
import ZeroMQ

/// The event bus carries only what PushBus's own services signed (`EventSeal`), and with `--curve`
/// only they can connect to it (the gateway's ZAP handler admits the bus key pair derived from
/// server.key). A peer that reaches the bus ports can neither make a service forget a device nor
/// read the stream.
@Suite("event bus security (integration)", .serialized)
struct EventBusSecurityTests {
    /// `device.deleted` for `id`, numbered as registration's next events would be, in every shape
    /// an attacker could send it: no proof, a proof made with the wrong key, and the admin's proof.
    func forgedDeletes(of id: String, stack: TestStack) -> [Message] {
        (1...20).flatMap { seq -> [Message] in
            let event = WireCodec.encode(Event(publisher: "registration", sequence: Int64(seq), time: RFC3339.string(from: Date()),
                                               body: DeviceDeletedEvent(appKey: "app1", registrationID: id)))
            let topic = Data(Topic.deviceDeleted.rawValue.utf8)
            let wrongKey = EventSeal.proof(topic: Topic.deviceDeleted.rawValue, event: event, publisher: "registration",
                                           key: String(repeating: "1", count: 64))
            let admin = Proof(principal: .admin, key: stack.secrets.admin, command: Topic.deviceDeleted.rawValue, payload: event).frame
            return [Message([topic, event]), Message([topic, event, wrongKey]), Message([topic, event, admin])]
        }
    }

    @Test func forgedEventsOnTheBusChangeNothing() throws {
        let stack = try TestStack().start(["registration", "badge"])
        let client = try stack.client()
        let id = try client.registerKnownToBadge(1)[0]
        #expect(try client.badgeSet(id, 7).code == 0)

        let rogue = try Socket.pub(stack.context, connect: stack.eventsIn)
        let listener = try Socket.sub(stack.context, connect: stack.eventsOut, topics: [Topic.deviceDeleted.rawValue])
        usleep(300_000)   // both connections in place before the forgeries go out
        for _ in 0..<3 {
            for forged in forgedDeletes(of: id, stack: stack) { try rogue.send(forged) }
            usleep(100_000)
        }
        usleep(500_000)

        #expect(try client.badgeKnows([id]), "badge did not forget the device")
        #expect(try client.badgeValue(id) == 7)
        var poller = Poller([listener])
        #expect(try poller.poll(timeout: 300).contains(listener) == false, "the gateway carried no forged event on")
        let page = try HTTPGet.fetch(port: stack.metricsPort, path: "/metrics").body
        #expect(page.contains("pushbus_gateway_events_refused_total 180"), "every forgery counted")

        // The genuine delete still works: registration's signed event reaches badge.
        #expect(try client.json("device.delete", ["app_key": "app1".json, "registration_id": id.json]).code == 0)
        #expect(try eventually(10) { try !client.badgeKnows([id]) }, "the genuine delete reached badge")
    }

    @Test func withCurveOnlyPushBusServicesCanReadOrWriteTheBus() throws {
        let stack = try TestStack.curved(["registration", "badge"])
        let serverKey = try #require(stack.serverKey)
        let client = try stack.client()

        // Readers without the bus key: plain, and CURVE with the gateway's public key but a key pair of their own.
        let plain = try Socket.sub(stack.context, connect: stack.eventsOut)
        let outsider = try Socket(stack.context, .sub)
        try outsider.makeCurveClient(serverKey: serverKey)
        try outsider.subscribe("")
        try outsider.connect(stack.eventsOut)
        let insider = try Socket(stack.context, .sub)
        try BusCurve(serverKey: serverKey, secrets: stack.secrets).secure(insider)
        try insider.subscribe("")
        try insider.connect(stack.eventsOut)
        usleep(300_000)

        let ids = try client.registerKnownToBadge(3)
        #expect(try client.json("device.delete", ["app_key": "app1".json, "registration_id": ids[0].json]).code == 0)
        #expect(try eventually(10) { try !client.badgeKnows([ids[0]]) }, "the services still talk over the bus")

        var insiderPoller = Poller([insider])
        #expect(try insiderPoller.poll(timeout: 1000).contains(insider), "a holder of the bus key reads the events")
        var outsiders = Poller([plain, outsider])
        #expect(try outsiders.poll(timeout: 500).isEmpty, "nobody else reads a thing")
        #expect(stack.gateway?.output.contains("bus connection refused") == true)
    }
}
