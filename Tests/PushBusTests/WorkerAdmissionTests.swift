import Client
import Credentials
import Foundation
import Majordomo
import Runtime
import Schema
import Testing
import ZeroMQ

/// Only PushBus's own services may be workers: a READY must carry a credential derived from
/// server.key for the service it announces (`WorkerCredential`). A peer that merely reaches the
/// request endpoint gets no request, can answer none, and is told to go away.
@Suite("worker admission (integration)", .serialized)
struct WorkerAdmissionTests {
    func dealer(_ stack: TestStack) throws -> Socket {
        let socket = try Socket(stack.context, .dealer)
        try socket.connect(stack.endpoint)
        return socket
    }

    /// Every message `socket` receives within `milliseconds`.
    func drain(_ socket: Socket, for milliseconds: Int) throws -> [WorkerMessage] {
        var received: [WorkerMessage] = []
        var poller = Poller([socket])
        let deadline = Clock.milliseconds() + Int64(milliseconds)
        while Clock.milliseconds() < deadline {
            guard try poller.poll(timeout: Int(max(1, deadline - Clock.milliseconds())))[0] else { continue }
            while let message = try socket.receive(wait: false) {
                if let parsed = try? WorkerMessage(frames: message.frames[...]) { received.append(parsed) }
            }
        }
        return received
    }

    func isRequest(_ message: WorkerMessage) -> Bool {
        if case .request = message { return true }
        return false
    }

    @Test func aReadyWithoutAValidCredentialGetsNoRequestAndIsToldToLeave() throws {
        let stack = try TestStack().start(["registration"])
        let client = try stack.client()
        _ = try client.json("app.create", ["name": "a".json, "app_key": "app1".json])

        let plain = try dealer(stack)
        try plain.send(WorkerMessage.ready(service: "registration", credit: 64).frames)
        let forged = try dealer(stack)
        let wrongKeys = Secrets(admin: stack.secrets.admin, serverKey: String(repeating: "0", count: 64))
        let fake = WorkerCredential(service: "registration", credit: 64, secrets: wrongKeys)
        try forged.send(WorkerMessage.ready(service: "registration", credit: 64, credential: [fake.stamp, fake.proof]).frames)
        let borrowed = try dealer(stack)
        let tagging = WorkerCredential(service: "tagging", credit: 64, secrets: stack.secrets)
        try borrowed.send(WorkerMessage.ready(service: "registration", credit: 64, credential: [tagging.stamp, tagging.proof]).frames)
        usleep(200_000)

        for index in 0..<40 {
            #expect(try client.register(deviceID: "d\(index)").isEmpty == false)
        }
        for (name, rogue) in [("plain READY", plain), ("forged key", forged), ("another service's credential", borrowed)] {
            let got = try drain(rogue, for: 300)
            #expect(!got.contains(where: isRequest), "\(name): a rogue worker was handed requests")
            #expect(got.first == .disconnect, "\(name): told to go away")
        }
        #expect(stack.gateway?.output.contains("worker refused") == true)
    }

    @Test func aCapturedReadyCannotAdmitASecondPeer() throws {
        let stack = try TestStack().start(["registration"])
        let captured = stack.ready("echo", credit: 4)
        let first = try dealer(stack)
        try first.send(captured)
        try stack.waitForService("echo")
        let second = try dealer(stack)
        try second.send(captured)
        #expect(try drain(second, for: 500).first == .disconnect, "the same credential again is a replay")
    }

    @Test func aPeerThatIsNotAnAdmittedWorkerCannotAnswerRequests() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "1500"]).start(["registration"])
        let mute = try dealer(stack)
        try mute.send(stack.ready("slow", credit: 4))
        try stack.waitForService("slow")
        let caller = try dealer(stack)
        try caller.send(ClientMessage(service: "slow", strings: ["{\"seq\":1}"]).frames)
        #expect(try drain(mute, for: 300).contains(where: isRequest), "the admitted worker holds the request")

        // A stranger answers every token the gateway could have handed out, with a forged reply.
        let rogue = try dealer(stack)
        for token in UInt64(1)...UInt64(200) {
            let forged = Data(#"{"code":0,"forged":true,"seq":1}"#.utf8)
            try rogue.send(WorkerMessage.reply(client: withUnsafeBytes(of: token.bigEndian) { Data($0) }, body: [forged]).frames)
            try rogue.send(WorkerMessage.reply(client: withUnsafeBytes(of: token.littleEndian) { Data($0) }, body: [forged]).frames)
        }
        var poller = Poller([caller])
        #expect(try poller.poll(timeout: 4000)[0])
        let reply = try ClientMessage(frames: try #require(try caller.receive()).frames[...])
        let answer = try JSONDecoder().decode(JSONValue.self, from: reply.body[0])
        #expect(answer["forged"] == nil, "the forged reply never reached the client")
        #expect(answer.code == 6002, "the request ended at its deadline: \(answer)")
    }
}
