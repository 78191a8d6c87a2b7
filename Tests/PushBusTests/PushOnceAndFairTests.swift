import Foundation
import JSON
import Testing

/// What a push service promises: each device notified once, a slow APNs waited for rather than sent
/// to twice, and every app served while another app broadcasts. Counted from the APNs stand-in's
/// own log, not from PushBus's counters.
@Suite("Push: each notification once, every app served (integration)", .serialized)
struct PushOnceAndFairTests {
    static func token(_ n: Int) -> String { String(format: "%064x", 0xD000_0000 + n) }

    @Test("an APNs that answers after 2.5 s gets every notification once, and each counts sent")
    func aSlowApnsGetsEachNotificationOnce() throws {
        let push = try PushStack()
        var ids: [String] = []
        for n in 0..<50 { ids.append(try push.device(Self.token(n), tags: ["slow"])) }
        try push.waitUntilKnown(ids)
        try push.apns.delay(2.5)
        let msgID = try #require(try push.push(to: .object(["tag": .array([.string("slow")])]))["msg_id"]?.string)
        let status = try push.waitUntilDone(msgID, within: 120)
        #expect(status["sent"]?.number == 50, "\(status)")
        #expect(status["failed"] == .object([:]), "\(status)")
        let requests = try push.received(msgID)
        var perToken: [String: Int] = [:]
        for request in requests { perToken[request["token"]?.string ?? "", default: 0] += 1 }
        #expect(requests.count == 50 && perToken.count == 50 && perToken.values.allSatisfy { $0 == 1 },
                "\(requests.count) requests for \(perToken.count) devices: \(perToken.values.filter { $0 > 1 }.count) got more than one")
        #expect(requests.allSatisfy { $0["status"]?.number == 200 })
        let apnsIDs = Set(requests.compactMap { $0["headers"]?["apns-id"]?.string })
        #expect(apnsIDs.count == 50, "each notification has its own apns-id, sent by PushBus")
    }

    @Test("a 3,000-device push with nothing wrong: every device once, none twice")
    func aBroadcastWithNoFaultHasNoDuplicate() throws {
        let count = 3000
        let push = try PushStack(gatewayFlags: ["--register-rate", "0"])
        _ = try push.devices(count, token: Self.token)
        try push.waitUntilKnown(count: count)
        let msgID = try #require(try push.push(to: .string("all"))["msg_id"]?.string)
        let status = try push.waitUntilDone(msgID, within: 120)
        #expect(status["sent"]?.number == Double(count), "\(status)")
        let requests = try push.received(msgID)
        let tokens = Set(requests.compactMap { $0["token"]?.string })
        #expect(tokens.count == count)
        #expect(requests.count - tokens.count == 0, "\(requests.count - tokens.count) duplicates")
        print("3,000-device push, no fault: \(requests.count) requests for \(tokens.count) devices, \(requests.count - tokens.count) duplicates")
    }

    /// A busy or paused sender misses its heartbeats: the gateway takes it for lost and answers its
    /// requests 6002, push asks again, yet the notifications were in flight and arrive. The sender
    /// knows each by its apns-id and answers the second request from what it has, not by sending twice.
    @Test("a sender the gateway takes for lost while its notifications are in flight sends none of them twice")
    func aSenderTakenForLostSendsNothingTwice() throws {
        let count = 1000
        let push = try PushStack(gatewayFlags: ["--register-rate", "0"])
        _ = try push.devices(count, token: Self.token)
        try push.waitUntilKnown(count: count)
        try push.apns.delay(1)
        let msgID = try #require(try push.push(to: .string("all"))["msg_id"]?.string)
        #expect(try eventually(30, every: 20_000) { try push.apns.count().requests >= 100 })
        let apns = try #require(push.stack.services["apns"]?.process.processIdentifier)
        kill(apns, SIGSTOP)
        usleep(1_500_000)  // past the gateway's liveness (3 × 200 ms): its requests are answered 6002
        kill(apns, SIGCONT)
        try push.apns.delay(0)
        let status = try push.waitUntilDone(msgID, within: 120)
        #expect(status["sent"]?.number == Double(count), "\(status)")
        let requests = try push.received(msgID)
        let tokens = Set(requests.compactMap { $0["token"]?.string })
        #expect(tokens.count == count && requests.count == count, "\(requests.count - tokens.count) sent twice")
        #expect(push.stack.gateway?.output.contains("reason=\"heartbeat expired\"") == true, "the gateway never took the sender for lost")
    }

    @Test("app B's one-device push reaches APNs within 250 ms (the median of six; none past 500 ms) while app F keeps 3,000-device pushes coming for 10 s")
    func oneAppsFloodDoesNotDelayAnother() throws {
        // The stand-in is one Python process answering its streams first come, first served: every
        // stream it holds is ~1 ms of queue in front of B's (four connections of 100 streams made
        // 300-450 ms of it). One connection of 10 streams keeps its queue short, so what is measured
        // is PushBus's own scheduling; real APNs answers its streams in parallel.
        let push = try PushStack(appKey: "floodapp", apnsFlags: ["--apns-connections", "1", "--apns-streams", "10"],
                                 gatewayFlags: ["--register-rate", "0"])
        _ = try push.devices(3000, token: Self.token)
        try push.waitUntilKnown(count: 3000)
        // App B: its own key, one device.
        _ = try push.call("app.create", ["name": "smallapp".json, "app_key": "smallapp".json])
        let saved = try push.call("apns.credentials", ["app_key": "smallapp".json, "team_id": .string(ApnsStandIn.teamID),
                                                       "key_id": .string(ApnsStandIn.keyID), "bundle_id": .string(ApnsStandIn.bundleID),
                                                       "p8": .string(push.apns.p8)])
        try #require(saved.code == 0)
        let small = try #require(try push.call("device.register", ["app_key": "smallapp".json, "platform": "ios".json,
                                                                     "apns_token": .string(Self.token(9999)), "device_id": "small-1".json])["registration_id"]?.string)
        #expect(try eventually(15) {
            try push.call("audience.resolve", ["app_key": "smallapp".json, "registration_id": .array([.string(small)])])["total"]?.number == 1
        })

        // F: a 3,000-device push every second for 10 s, from a thread of its own: three times what the
        // stand-in answers in that second, so F's backlog only grows.
        let flooding = DispatchSemaphore(value: 0)
        let stack = push.stack
        Thread.detachNewThread {
            guard let floodClient = try? stack.client() else {
                flooding.signal()
                return
            }
            let end = Date().addingTimeInterval(10)
            while Date() < end {
                _ = try? floodClient.json("push.send", ["app_key": "floodapp".json, "to": "all".json,
                                                        "body": .object(["platform": "ios".json, "notification": .object(["alert": "flood".json])])])
                usleep(1_000_000)
            }
            flooding.signal()
        }
        usleep(1_500_000)  // F's backlog builds up first

        // Meanwhile B pushes to its one device, once a second: each must reach the stand-in promptly.
        var lags: [Double] = []
        for round in 0..<6 {
            let sentAt = Date().timeIntervalSince1970
            let reply = try push.call("push.send", ["app_key": "smallapp".json, "to": .object(["registration_id": .array([.string(small)])]),
                                                    "body": .object(["platform": "ios".json, "notification": .object(["alert": .string("small \(round)")])])])
            let msgID = try #require(reply["msg_id"]?.string, "\(reply)")
            var arrived: Double?
            _ = try eventually(20, every: 20_000) {
                arrived = try push.received(msgID).first?["time"]?.number
                return arrived != nil
            }
            lags.append((arrived ?? .infinity) - sentAt)
            usleep(700_000)
        }
        let fPending = try push.call("push.status", ["app_key": "floodapp".json, "msg_ids": .array([.string("1000000001")])])
        print("app B's lag under app F's flood (s): \(lags.map { String(format: "%.3f", $0) }.joined(separator: ", ")); F: \(fPending)")
        // The median, with a bound on the worst: on a 2-core machine whose second core the stand-in
        // takes, a durable commit or a scheduling hiccup of this machine's alone can add 100 ms.
        let sorted = lags.sorted()
        #expect(sorted[sorted.count / 2] <= 0.25 && sorted.last! <= 0.5, "B's one-device pushes reached APNs after \(lags) s while F flooded")
        flooding.wait()
    }
}
