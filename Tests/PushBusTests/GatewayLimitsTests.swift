import Client
import Foundation
import Majordomo
import Schema
import Testing
import ZeroMQ

/// CURVE on the request endpoint, the per-app request rate, and the frame limit, on the real gateway.
@Suite("gateway encryption and limits (integration)", .serialized)
struct GatewayLimitsTests {
    @Test func curveLetsKeyHoldersInAndKeepsPlainClientsOut() throws {
        let keys = try CurveKeys.generate()
        let keyFile = TestPaths.temporaryDirectory("curve") + "/curve.secret"
        try keys.secretKey.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let curved = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--curve-secret-file", keyFile])
        curved.serverKey = keys.publicKey
        try curved.startGateway()
        try curved.startService("registration", extra: ["--curve-server-key", keys.publicKey])

        #expect(try curved.client().register(deviceID: "secret-phone").count == 20, "a client with the server key is served")
        let plain = try MajordomoClient(endpoint: curved.endpoint, context: curved.context, timeoutMilliseconds: 500)
        #expect(throws: ClientError.timeout(milliseconds: 500)) { try plain.serviceStatus("registration") }
        let wrong = try MajordomoClient(endpoint: curved.endpoint, context: curved.context, timeoutMilliseconds: 500,
                                        serverKey: try CurveKeys.generate().publicKey)
        #expect(throws: ClientError.timeout(milliseconds: 500)) { try wrong.serviceStatus("registration") }
    }

    @Test func anAppPastItsRateGets6011AndOthersDoNot() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--app-rate", "20"]).start()
        let caller = try Socket(stack.context, .dealer)
        try caller.connect(stack.endpoint)
        _ = try stack.client().json("app.create", ["name": "busy".json, "app_key": "busy".json])
        for n in 0..<100 {
            try caller.send(ClientMessage(service: "device", strings: ["device.register",
                                                                       #"{"app_key":"busy","platform":"ios","seq":\#(n)}"#]).frames)
        }
        var poller = Poller([caller])
        var codes: [Int: Int] = [:]
        var replies = 0
        while replies < 100, try poller.poll(timeout: 5000)[0] {
            while let message = try caller.receive(wait: false) {
                replies += 1
                codes[try JSONDecoder().decode(JSONValue.self, from: message[3]).code ?? -1, default: 0] += 1
            }
        }
        #expect(replies == 100)
        #expect(codes[6011, default: 0] >= 70, "a burst of 100 against 20 a second is mostly refused: \(codes)")
        #expect(codes[0, default: 0] >= 15, "about a second's worth passes")
        #expect(try stack.client().register(appKey: "calm").count == 20, "another app is not held back")
    }

    @Test func aRequestWithTooManyFramesIsRefused() throws {
        let stack = try TestStack().start()
        let reply = try stack.client().request("registration", (0..<20).map { _ in Data("x".utf8) })
        #expect(try JSONDecoder().decode(JSONValue.self, from: reply[0]).code == 6017)
    }
}
