import Foundation
import JSON
import Majordomo
import Schema
import Testing
import ZeroMQ

/// `push.send` asks tagging whether its audience has a device before it accepts the push. The
/// question waits outside any transaction, so while tagging holds its answer back the push worker
/// goes on serving every other request.
@Suite("Push asks other services outside its transactions (integration)", .serialized)
struct PushInquiryTests {
    @Test func pushAnswersOtherRequestsWhileTaggingHoldsItsAnswer() throws {
        // A gateway slow to declare a silent worker dead, so tagging can be held for seconds.
        let push = try PushStack(pushFlags: ["--inquiry-timeout-ms", "8000"],
                                 gatewayFlags: ["--heartbeat-ms", "1000", "--request-timeout-ms", "10000"])
        let device = try push.device(String(format: "%064x", 0xBEEF), tags: ["held"])
        try push.waitUntilKnown([device])
        let tagging = try #require(push.stack.services["tagging"]?.process.processIdentifier)

        kill(tagging, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(tagging, SIGCONT) } }
        // push.send to the tag, not waited for: its question to tagging now hangs.
        let sender = try push.stack.dealer()
        defer { sender.close() }
        let body: JSONValue = .object(["app_key": .string(push.appKey), "to": .object(["tag": .array([.string("held")])]),
                                       "body": .object(["platform": "ios".json, "notification": .object(["alert": "held".json])])])
        let signed = push.stack.signer().sign(command: "push.send", payload: WireCodec.encode(body))
        try sender.send(Message([Data(), MDP.client, Data("push".utf8)] + signed))
        usleep(300_000)

        // Meanwhile the push worker answers its other requests at once.
        var slowest = 0.0
        for _ in 0..<5 {
            let started = Date()
            let status = try push.call("push.status", ["app_key": .string(push.appKey), "msg_ids": .array([.string("1000000001")])])
            let devices = try push.call("push.device_status", ["app_key": .string(push.appKey), "msg_id": "1000000001".json,
                                                                "registration_ids": .array([.string(device)])])
            slowest = max(slowest, Date().timeIntervalSince(started))
            #expect(status.code == 0 && devices.code != nil, "\(status) \(devices)")
        }
        #expect(slowest < 0.5, "push took \(slowest) s to answer while tagging held push.send's question")
        #expect(try sender.receive(wait: false) == nil, "push.send was answered without tagging's answer")

        kill(tagging, SIGCONT)
        resumed = true
        var poller = Poller([sender])
        _ = try poller.poll(timeout: 8000)
        let reply = try #require(try sender.receive(wait: false), "push.send was never answered once tagging answered").frames.last ?? Data()
        let accepted = try JSONTreeDecoder().decode(JSONValue.self, from: reply)
        #expect(accepted.code == 0 && accepted["msg_id"]?.string != nil, "\(accepted)")
    }
}
