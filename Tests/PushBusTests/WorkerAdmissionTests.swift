import Client
import Credentials
import Foundation
import JSON
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
    /// Every message `socket` receives within `milliseconds`.
    func drain(_ socket: Socket, for milliseconds: Int) throws -> [WorkerMessage] {
        var received: [WorkerMessage] = []
        var poller = Poller([socket])
        let deadline = Clock.milliseconds() + Int64(milliseconds)
        while Clock.milliseconds() < deadline {
            guard try poller.poll(timeout: Int(max(1, deadline - Clock.milliseconds()))).contains(socket) else { continue }
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

        let plain = try stack.dealer()
        try plain.send(WorkerMessage.ready(service: "registration", credit: 64).frames)
        let forged = try stack.dealer()
        let wrongKeys = Secrets(admin: stack.secrets.admin, serverKey: String(repeating: "0", count: 64))
        try forged.send(WorkerMessage.ready(service: "registration", credit: 64,
                                            credential: try stack.credential(forged, "registration", 64, secrets: wrongKeys)).frames)
        let borrowed = try stack.dealer()
        try borrowed.send(WorkerMessage.ready(service: "registration", credit: 64,
                                              credential: try stack.credential(borrowed, "tagging", 64)).frames)
        let unchallenged = try stack.dealer()
        let madeUp = WorkerCredential(service: "registration", credit: 64, challenge: RandomKey.hex(bytes: 16), secrets: stack.secrets)
        try unchallenged.send(WorkerMessage.ready(service: "registration", credit: 64, credential: [madeUp.stamp, madeUp.proof]).frames)
        usleep(200_000)

        for index in 0..<40 {
            #expect(try client.register(deviceID: "d\(index)").isEmpty == false)
        }
        for (name, rogue) in [("plain READY", plain), ("forged key", forged), ("another service's credential", borrowed),
                              ("a challenge the gateway never gave", unchallenged)] {
            let got = try drain(rogue, for: 300)
            #expect(!got.contains(where: isRequest), "\(name): a rogue worker was handed requests")
            #expect(got.first == .disconnect, "\(name): told to go away")
        }
        #expect(stack.gateway?.output.contains("worker refused") == true)
    }

    /// A READY seen on the wire names a challenge that is spent, was given to another connection,
    /// or (after a restart) was never given by this gateway: it admits nobody.
    @Test func aCapturedReadyAdmitsNobodyElseBeforeOrAfterAGatewayRestart() throws {
        let stack = try TestStack().start(["registration"])
        let first = try stack.dealer()
        let captured = try stack.admit(first, as: "echo", credit: 4)
        try stack.waitForService("echo")
        let second = try stack.dealer()
        try second.send(captured)
        #expect(try drain(second, for: 500).first == .disconnect, "the same READY again, from another connection")

        // A challenge asked for by one connection and used by another.
        let asker = try stack.dealer()
        let thief = try stack.dealer()
        try thief.send(WorkerMessage.ready(service: "echo", credit: 4, credential: try stack.credential(asker, "echo", 4)).frames)
        #expect(try drain(thief, for: 500).first == .disconnect, "a challenge is good for the connection that asked only")

        stack.gateway?.kill()
        try stack.startGateway()
        try stack.waitForService("registration")
        let third = try stack.dealer()
        try third.send(captured)
        let got = try drain(third, for: 500)
        #expect(got.first == .disconnect && !got.contains(where: isRequest), "a restarted gateway never gave that challenge")
        #expect(try MajordomoClient(endpoint: stack.endpoint, context: stack.context, timeoutMilliseconds: 500).serviceStatus("echo") == "404")
    }

    @Test func aPeerThatIsNotAnAdmittedWorkerCannotAnswerRequests() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "1500"]).start(["registration"])
        let mute = try stack.dealer()
        try stack.admit(mute, as: "slow", credit: 4)
        try stack.waitForService("slow")
        let caller = try stack.dealer()
        try caller.send(ClientMessage(service: "slow", strings: ["{\"seq\":1}"]).frames)
        #expect(try drain(mute, for: 300).contains(where: isRequest), "the admitted worker holds the request")

        // A stranger answers every token the gateway could have handed out, with a forged reply.
        let rogue = try stack.dealer()
        for token in UInt64(1)...UInt64(200) {
            let forged = Data(#"{"code":0,"forged":true,"seq":1}"#.utf8)
            try rogue.send(WorkerMessage.reply(client: withUnsafeBytes(of: token.bigEndian) { Data($0) }, body: [forged]).frames)
            try rogue.send(WorkerMessage.reply(client: withUnsafeBytes(of: token.littleEndian) { Data($0) }, body: [forged]).frames)
        }
        var poller = Poller([caller])
        #expect(try poller.poll(timeout: 4000).contains(caller))
        let reply = try ClientMessage(frames: try #require(try caller.receive()).frames[...])
        let answer = try JSONDecoder().decode(JSONValue.self, from: reply.body[0])
        #expect(answer["forged"] == nil, "the forged reply never reached the client")
        #expect(answer.code == 6002, "the request ended at its deadline: \(answer)")
    }
}
