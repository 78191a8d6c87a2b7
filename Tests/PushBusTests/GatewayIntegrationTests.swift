import Client
import Foundation
import JSON
import Majordomo
import Schema
import Testing
import ZeroMQ

/// The real `gateway` executable over TCP, with real or hand-made workers.
@Suite("gateway (integration)", .serialized)
struct GatewayIntegrationTests {
    func receive(_ socket: Socket, within milliseconds: Int) throws -> Message? {
        var poller = Poller([socket])
        guard try poller.poll(timeout: milliseconds).contains(socket) else { return nil }
        return try socket.receive()
    }

    @Test func mmiServiceAnswers200404And501() throws {
        let stack = try TestStack().start()
        let client = try stack.client()
        #expect(try client.serviceStatus("registration") == "200")
        #expect(try client.serviceStatus("device") == "200")
        #expect(try client.serviceStatus("tagging") == "404")
        #expect(try client.serviceStatus("nothing") == "404")
        let unknown = try client.request("mmi.nonsense", [Data("x".utf8)])
        #expect(unknown == [Data("501".utf8)])
    }

    @Test func unknownCommandsAndMalformedPayloadsGetErrorReplies() throws {
        let stack = try TestStack().start()
        let client = try stack.client()
        let unknown = try client.json("device.teleport", ["seq": .number(11)])
        #expect(unknown.code == 6017)
        #expect(unknown["seq"] == .number(11), "seq is echoed even on a gateway error")
        #expect(unknown["message"]?.string?.contains("unknown command") == true)

        let notJSON = try JSONDecoder().decode(JSONValue.self, from: client.call("device.get", payload: Data("{oops".utf8)))
        #expect(notJSON.code == 6017)
        let notObject = try JSONDecoder().decode(JSONValue.self, from: client.call("device.get", payload: Data("[1,2]".utf8)))
        #expect(notObject.code == 6017)
        let wrongType = try client.json("device.get", ["app_key": "a".json, "registration_id": .array([]), "seq": .number(3)])
        #expect(wrongType.code == 6017)
        #expect(wrongType["seq"] == .number(3))
        let missing = try client.json("device.get", ["app_key": "a".json])
        #expect(missing.code == 6001)

        let threeFrames = try client.request("device", [Data("device.get".utf8), Data(#"{"app_key":"a","registration_id":"r"}"#.utf8),
                                                        Data("not a proof".utf8)])
        #expect(try JSONDecoder().decode(JSONValue.self, from: threeFrames[0]).code == 6017)
        let noCommand = try client.request("device", [])
        #expect(try JSONDecoder().decode(JSONValue.self, from: noCommand[0]).code == 6017)
        let badUTF8 = try client.request("registration", [Data([0xFF, 0xFE]), Data("{}".utf8)])
        #expect(try JSONDecoder().decode(JSONValue.self, from: badUTF8[0]).code == 6017)
        let huge = try client.call("device.get", payload: Data(repeating: 0x20, count: 2 << 20))
        #expect(try JSONDecoder().decode(JSONValue.self, from: huge).code == 6017)
        _ = try client.register()
    }

    @Test func anUnknownCommandIs6017WhetherSignedOrNot() throws {
        let stack = try TestStack().start()
        let unsigned = try MajordomoClient(endpoint: stack.endpoint, context: stack.context)
        let payload: [String: JSONValue] = ["app_key": "app1".json, "registration_id": "r1".json, "seq": .number(4)]
        for client in [unsigned, try stack.client()] {
            let reply = try client.json("device.teleport", payload)
            #expect(reply.code == 6017, "\(reply)")
            #expect(reply["message"]?.string?.hasPrefix("unknown command device.teleport") == true, "\(reply)")
            #expect(reply["seq"] == .number(4))
        }
        let known = try unsigned.json("device.get", payload)
        #expect(known.code == 1008, "a known command still needs its proof: \(known)")
    }

    @Test func garbageFramesNeverStopTheBroker() throws {
        let stack = try TestStack().start()
        let raw = try stack.dealer()
        try raw.send(Message([Data("no delimiter".utf8)]))
        try raw.send(Message([Data(), Data("MDPX99".utf8), Data("device".utf8)]))
        let reply = try #require(try receive(raw, within: 3000), "a client with a bad header still gets an answer")
        #expect(reply.frames.count == 4)
        #expect(reply.frames[1] == MDP.client)
        #expect(try JSONDecoder().decode(JSONValue.self, from: reply.frames[3]).code == 6017)
        try raw.send(Message([Data(), MDP.client]))
        #expect(try receive(raw, within: 3000).map { try JSONDecoder().decode(JSONValue.self, from: $0.frames[3]).code } == 6017)
        try raw.send(Message([Data(), MDP.worker, Data([7])]))
        try raw.send(Message([Data(), MDP.worker, Data([3]), Data("nobody".utf8), Data(), Data("x".utf8)]))
        var random = TestRandom()
        for _ in 0..<1000 {
            let frames = (0..<Int.random(in: 1...5, using: &random)).map { _ in
                Data((0..<Int.random(in: 0...9, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
            try raw.send(Message(frames))
        }
        let client = try stack.client()
        #expect(try client.serviceStatus("registration") == "200", "seed \(random.seed)")
        #expect(try client.register().count == 20, "seed \(random.seed)")
        #expect(stack.gateway?.isRunning == true, "seed \(random.seed)")
    }

    /// A ts at the edge of Int64 made the gateway's clock check overflow and trap, before any proof
    /// was looked at: one unsigned message from anybody stopped it.
    @Test func aTsFarOutOfRangeIsRefusedAndTheGatewayKeepsServing() throws {
        let stack = try TestStack().start()
        let raw = try stack.dealer()
        for ts in ["-9223372036854775808", "9223372036854775807"] {
            let payload = #"{"app_key":"ak","registration_id":"r","ts":"# + ts + #","nonce":"n"}"#
            let proof = "v1 device:r " + String(repeating: "0", count: 64)
            try raw.send(Message([Data(), MDP.client, Data("device".utf8), Data("tags.get".utf8), Data(payload.utf8), Data(proof.utf8)]))
            let reply = try #require(try receive(raw, within: 3000), "ts \(ts): answered")
            #expect(try JSONDecoder().decode(JSONValue.self, from: reply.frames[3]).code == 1008, "ts \(ts)")
        }
        #expect(try stack.client().register().count == 20)
        #expect(stack.gateway?.isRunning == true)
    }

    @Test func noWorkerMeansCode6002AtTheDeadline() throws {
        let stack = try TestStack(gatewayArguments: ["--request-timeout-ms", "500"])
        try stack.startGateway()
        let client = try stack.client(timeoutMilliseconds: 5000)
        let started = Date()
        let reply = try client.json("device.get", ["app_key": "a".json, "registration_id": "r".json, "seq": .number(5)])
        let waited = Date().timeIntervalSince(started)
        #expect(reply.code == 6002)
        #expect(reply["seq"] == .number(5))
        #expect(waited >= 0.4 && waited < 4)
    }

    @Test func aDeadWorkerLeavesNoClientWaitingPastTheDeadline() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "100", "--request-timeout-ms", "3000"])
        try stack.startGateway()
        let worker = try stack.dealer()
        try stack.admit(worker, as: "slow", credit: 2)
        try stack.waitForService("slow")
        let client = try stack.client(timeoutMilliseconds: 6000)
        let started = Date()
        let caller = try Socket.dealer(stack.context, connect: stack.endpoint)
        try caller.send(ClientMessage(service: "slow", strings: ["{\"seq\":1}"]).frames)
        var request = try #require(try receive(worker, within: 3000))
        // The gateway heartbeats the worker every 100 ms; on a busy machine one may come first.
        while case .heartbeat = try WorkerMessage(frames: request.frames[...]) {
            request = try #require(try receive(worker, within: 3000))
        }
        guard case .request = try WorkerMessage(frames: request.frames[...]) else {
            Issue.record("expected a REQUEST, got \(request.frames)")
            return
        }
        worker.close()
        let reply = try #require(try receive(caller, within: 5000), "the client must get an answer")
        let waited = Date().timeIntervalSince(started)
        #expect(try JSONDecoder().decode(JSONValue.self, from: reply.frames[3]).code == 6002)
        #expect(waited < 3.5, "answered when the worker was declared dead or at the deadline, not later")
        #expect(try client.serviceStatus("slow") == "404", "the dead worker is forgotten")
    }

    @Test func aKilledServiceProcessAnswers6002AndARestartedOneServesAgain() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "100", "--request-timeout-ms", "1500"]).start()
        let client = try stack.client(timeoutMilliseconds: 5000)
        let id = try client.register(deviceID: "survivor")
        stack.services["registration"]?.kill()
        let started = Date()
        let reply = try client.json("device.get", ["app_key": "app1".json, "registration_id": id.json])
        #expect(reply.code == 6002)
        #expect(Date().timeIntervalSince(started) < 3)
        try stack.startService("registration")
        #expect(try client.json("device.get", ["app_key": "app1".json, "registration_id": id.json]).code == 0)
    }

    @Test func workersFindARestartedGatewayAgain() throws {
        let stack = try TestStack().start()
        let client = try stack.client(timeoutMilliseconds: 5000)
        let id = try client.register(deviceID: "before")
        stack.gateway?.kill()
        try stack.startGateway()
        try stack.waitForService("registration")
        #expect(try client.register(deviceID: "before", registrationID: id) == id)
    }

    @Test func aRequestInFlightWhenTheGatewayDiesEndsInAnErrorNotAHang() throws {
        let stack = try TestStack().start()
        let worker = try stack.dealer()
        try stack.admit(worker, as: "slow", credit: 1)
        try stack.waitForService("slow")
        let client = try stack.client(timeoutMilliseconds: 1500)
        let started = Date()
        stack.gateway?.kill()
        #expect(throws: ClientError.timeout(milliseconds: 1500)) { try client.request("slow", [Data("x".utf8), Data("{}".utf8)]) }
        #expect(Date().timeIntervalSince(started) < 3, "the client's own deadline ends the wait")
        try stack.startGateway()
        try stack.waitForService("registration")
        #expect(try client.register(deviceID: "after-restart").count == 20, "the same client is served by the new gateway")
    }

    @Test func aFullQueueIsRefusedAtOnce() throws {
        let stack = try TestStack(gatewayArguments: ["--queue-limit", "2", "--request-timeout-ms", "3000"])
        try stack.startGateway()
        let caller = try Socket.dealer(stack.context, connect: stack.endpoint)
        for seq in 1...3 {
            try caller.send(stack.signed("device.get", #"{"app_key":"a","registration_id":"r","seq":\#(seq)}"#))
        }
        let first = try #require(try receive(caller, within: 1000), "the third request is refused without waiting")
        let refused = try JSONDecoder().decode(JSONValue.self, from: first.frames[3])
        #expect(refused.code == 6002)
        #expect(refused["seq"] == .number(3))
        #expect(refused["message"]?.string?.contains("queue is full") == true)
    }

    @Test func expiredRequestsDoNotKeepTheQueueFull() throws {
        let stack = try TestStack(gatewayArguments: ["--queue-limit", "2", "--request-timeout-ms", "300"])
        try stack.startGateway()
        let caller = try Socket.dealer(stack.context, connect: stack.endpoint)
        for round in 0..<3 {
            for seq in 0..<2 {
                try caller.send(stack.signed("device.get", #"{"app_key":"a","registration_id":"r","seq":\#(seq)}"#))
            }
            for _ in 0..<2 {
                let reply = try #require(try receive(caller, within: 3000))
                let value = try JSONDecoder().decode(JSONValue.self, from: reply.frames[3])
                #expect(value.code == 6002)
                #expect(value["message"]?.string?.contains("in time") == true, "round \(round): \(value)")
            }
        }
    }

    @Test func manyRequestsInFlightAreAllAnsweredAndMatchedBySeq() throws {
        let stack = try TestStack().start()
        let caller = try Socket.dealer(stack.context, connect: stack.endpoint)
        let count = 2000
        _ = try stack.client().json("app.create", ["name": "load".json, "app_key": "load".json])
        for seq in 0..<count {
            let payload = #"{"app_key":"load","platform":"android","device_id":"d\#(seq)","seq":\#(seq)}"#
            try caller.send(ClientMessage(service: "device", strings: ["device.register", payload]).frames)
        }
        var seen = Set<Int>()
        while seen.count < count, let reply = try receive(caller, within: 10_000) {
            let value = try JSONDecoder().decode(JSONValue.self, from: reply.frames[3])
            #expect(value.code == 0)
            if let seq = value["seq"]?.number { seen.insert(Int(seq)) }
        }
        #expect(seen.count == count)
    }
}
