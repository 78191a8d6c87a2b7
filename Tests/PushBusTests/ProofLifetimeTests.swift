import Client
import Credentials
import Foundation
import JSON
import Majordomo
import Schema
import Testing

/// A proof is good once: the service that handles a signed request records the proof in the same
/// transaction (`ProofLedger`), so a captured request is refused again after the gateway restarted
/// (its replay cache empty) or after the service itself was killed; and a deleted device's proofs
/// are refused by the gateway as soon as it has seen the delete on the bus.
@Suite("proof lifetime (integration)", .serialized)
struct ProofLifetimeTests {
    func send(_ client: MajordomoClient, _ body: [Data]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: client.request("device", body)[0])
    }

    func restartGateway(_ stack: TestStack, services: [String]) throws {
        stack.gateway?.kill()
        try stack.startGateway()
        for name in services { try stack.waitForService(name) }
    }

    @Test func aCapturedRequestIsRefusedAfterTheGatewayRestarts() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let operatorClient = try stack.client()
        let id = try operatorClient.register(deviceID: "phone")
        let signer = stack.signer()
        let payload = { (tags: String) in Data(#"{"app_key":"app1","registration_id":"\#(id)","tags":[\#(tags)]}"#.utf8) }
        let accepted = signer.sign(command: "tags.add", payload: payload(#""vip""#))
        let refused = signer.sign(command: "tags.add", payload: payload(#""bad tag!""#))
        let raw = try MajordomoClient(endpoint: stack.endpoint, context: stack.context)

        #expect(try send(raw, accepted).code == 0)
        #expect(try send(raw, refused).code == 6005)
        #expect(try send(raw, accepted)["message"]?.string?.contains("already used") == true, "the gateway's own cache")

        try restartGateway(stack, services: ["registration", "tagging"])
        let raw2 = try MajordomoClient(endpoint: stack.endpoint, context: stack.context)
        for body in [accepted, refused] {
            let again = try send(raw2, body)
            #expect(again.code == 1008, "\(again)")
            #expect(again["message"]?.string == "proof already used")
        }

        // The record is as durable as the write it came with: kill -9 the service and start it again.
        stack.services["tagging"]?.kill()
        try stack.waitForServiceGone("tagging")
        try stack.startService("tagging")
        #expect(try send(raw2, accepted).code == 1008)
        let tags = try operatorClient.json("tags.get", ["app_key": "app1".json, "registration_id": id.json])
        #expect(tags["tags"] == .array(["vip".json]), "\(tags)")
    }

    @Test func theGatewayRefusesADeletedDevicesProofsOnceItHasSeenTheDelete() throws {
        // No tagging worker: a tags.add the gateway let through would wait for its deadline (6002).
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "1000"]).start(["registration"])
        let client = try stack.client(timeoutMilliseconds: 3000)
        let addTag = { (id: String) in
            try client.json("tags.add", ["app_key": "app1".json, "registration_id": id.json, "tags": .array(["x".json])])
        }
        // The registration worker's publisher joins the bus a moment after the worker answers MMI, and
        // a PUB socket drops what it publishes before the gateway's subscription has reached it
        // (ZeroMQ's slow joiner; the gateway's list is best effort, the services' tombstones are the
        // authority). So first delete probe devices until the gateway has seen one delete.
        var joined = false
        let deadline = Date().addingTimeInterval(20)
        while !joined && Date() < deadline {
            let probe = try client.register(deviceID: "probe-\(UUID().uuidString.prefix(8))")
            #expect(try client.json("device.delete", ["app_key": "app1".json, "registration_id": probe.json]).code == 0)
            joined = try eventually(0.3, every: 20_000) { try addTag(probe)["message"]?.string == "device deleted" }
        }
        #expect(joined, "the gateway never saw a probe's delete")

        let id = try client.register(deviceID: "gone")
        #expect(try client.json("device.delete", ["app_key": "app1".json, "registration_id": id.json]).code == 0)

        // The delete reaches the gateway on the bus a moment after its reply.
        var reply: JSONValue = .null
        var took = 0.0
        #expect(try eventually(5, every: 20_000) {
            let started = Date()
            reply = try addTag(id)
            took = Date().timeIntervalSince(started)
            return reply["message"]?.string == "device deleted"
        }, "last reply: \(reply)")
        #expect(reply.code == 1008)
        #expect(took < 0.5, "answered by the gateway at once, not at the deadline")
        #expect(try client.json("device.get", ["app_key": "app1".json, "registration_id": id.json]).code == 1008)
    }
}
