import Client
import Foundation
import JSON
import Majordomo
import Schema
import Testing
import ZeroMQ

/// CURVE on the request endpoint, the per-app request rate, and the frame limit, on the real gateway.
@Suite("gateway encryption and limits (integration)", .serialized)
struct GatewayLimitsTests {
    @Test func curveLetsKeyHoldersInAndKeepsPlainClientsOut() throws {
        let curved = try TestStack.curved(["registration"])

        #expect(try curved.client().register(deviceID: "secret-phone").count == 20, "a client with the server key is served")
        let plain = try MajordomoClient(endpoint: curved.endpoint, context: curved.context, timeoutMilliseconds: 500)
        #expect(throws: ClientError.timeout(milliseconds: 500)) { try plain.serviceStatus("registration") }
        let wrong = try MajordomoClient(endpoint: curved.endpoint, context: curved.context, timeoutMilliseconds: 500,
                                        serverKey: try CurveKeys.generate().publicKey)
        #expect(throws: ClientError.timeout(milliseconds: 500)) { try wrong.serviceStatus("registration") }
    }

    /// Sends `messages` (each with its own `seq`) on one DEALER as fast as it goes; each reply by seq.
    func repliesBySeq(_ stack: TestStack, _ messages: [Message]) throws -> [Int: JSONValue] {
        let caller = try Socket.dealer(stack.context, connect: stack.endpoint)
        for message in messages { try caller.send(message) }
        var poller = Poller([caller])
        var replies: [Int: JSONValue] = [:]
        while replies.count < messages.count, try poller.poll(timeout: 5000).contains(caller) {
            while let message = try caller.receive(wait: false) {
                let reply = try JSONDecoder().decode(JSONValue.self, from: message[3])
                replies[Int(reply["seq"]?.number ?? -1)] = reply
            }
        }
        return replies
    }

    func unsignedRegistration(_ appKey: String, seq: Int) -> Message {
        ClientMessage(service: "device", strings: ["device.register", #"{"app_key":"\#(appKey)","platform":"ios","device_id":"d\#(seq)","seq":\#(seq)}"#]).frames
    }

    func codes(_ replies: [Int: JSONValue], _ seqs: Range<Int>) -> [Int: Int] {
        seqs.reduce(into: [:]) { codes, seq in codes[replies[seq]?.code ?? -1, default: 0] += 1 }
    }

    @Test func anAppPastItsRateGets6011AndOthersDoNot() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--app-rate", "20"]).start(["registration", "tagging"])
        _ = try stack.client().register(appKey: "busy")
        let calls = (0..<100).map { stack.signed("tags.list", #"{"app_key":"busy","seq":\#($0)}"#) }
        let replies = try repliesBySeq(stack, calls)
        #expect(replies.count == 100)
        let codes = codes(replies, 0..<100)
        #expect(codes[6011, default: 0] >= 70, "a burst of 100 against 20 a second is mostly refused: \(codes)")
        #expect(codes[0, default: 0] >= 15, "about a second's worth passes")
        #expect(try stack.client().register(appKey: "calm").count == 20, "another app is not held back")
    }

    @Test func unsignedRegistrationsNamingAnAppDoNotSpendItsRate() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--app-rate", "40"]).start()
        let id = try stack.client().register(appKey: "victim")
        let attack = (0..<200).map { unsignedRegistration("victim", seq: $0) }
        let calls = (1000..<1020).map { stack.signed("device.get", #"{"app_key":"victim","registration_id":"\#(id)","seq":\#($0)}"#) }
        let replies = try repliesBySeq(stack, attack + calls)
        #expect(replies.count == 220)
        let victim = codes(replies, 1000..<1020)
        #expect(victim == [0: 20], "the app's own signed calls, 20 within its 40 a second, are all served: \(victim)")
    }

    /// Anyone can register a device of an app and sign as it: its flood spends its own rate, not
    /// the rate of the app's server.
    @Test func aDeviceFloodSpendsItsOwnRateNotItsAppServers() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--app-rate", "20", "--device-rate", "20"])
            .start(["registration", "tagging"])
        let attacker = try stack.client().register(appKey: "victim", deviceID: "attacker")
        let flood = (0..<100).map { stack.signed("device.get", #"{"app_key":"victim","registration_id":"\#(attacker)","seq":\#($0)}"#) }
        let server = (1000..<1015).map { stack.signed("tags.list", #"{"app_key":"victim","seq":\#($0)}"#) }
        let replies = try repliesBySeq(stack, flood + server)
        #expect(replies.count == 115)
        let device = codes(replies, 0..<100)
        #expect(device[6011, default: 0] >= 70, "the device is held to its own 20 a second: \(device)")
        let app = codes(replies, 1000..<1015)
        #expect(app == [0: 15], "the app's server, 15 calls within its 20 a second, is served in full: \(app)")
    }

    @Test func onePeerPastTheRegistrationRateGets6011() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--register-rate", "5", "--register-burst", "10"]).start()
        _ = try stack.client().json("app.create", ["name": "crowd".json, "app_key": "crowd".json])
        let replies = try repliesBySeq(stack, (0..<40).map { unsignedRegistration("crowd", seq: $0) })
        #expect(replies.count == 40)
        let codes = codes(replies, 0..<40)
        #expect(codes[6011, default: 0] >= 25, "a burst of 40 against 10 at once and 5 a second: \(codes)")
        #expect((10...15).contains(codes[0, default: 0]), "the burst passes: \(codes)")
        let refused = replies.values.first { $0.code == 6011 }
        #expect(refused?["message"]?.string?.contains("registrations a second from this address") == true, "\(String(describing: refused))")
        let signed = try stack.client().json("device.get", ["app_key": "crowd".json, "registration_id": "00000000000000000000".json])
        #expect(signed.code != 6011, "signed calls from the same address are not counted: \(signed)")
    }

    @Test func aRequestWithTooManyFramesIsRefused() throws {
        let stack = try TestStack().start()
        let reply = try stack.client().request("registration", (0..<20).map { _ in Data("x".utf8) })
        #expect(try JSONDecoder().decode(JSONValue.self, from: reply[0]).code == 6017)
    }
}
