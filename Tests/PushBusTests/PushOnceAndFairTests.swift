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
        // Stopped past the gateway's liveness (3 × 200 ms): its requests are answered 6002.
        let push = try Self.stopSenderMidPush(count: 1000, stopMicroseconds: 1_500_000, apnsFlags: [])
        #expect(push.stack.gateway?.output.contains("reason=\"heartbeat expired\"") == true, "the gateway never took the sender for lost")
    }

    /// A sender stopped (SIGSTOP, or starved of the CPU) wakes with its clock far ahead, while APNs's
    /// answers wait in its socket (and epoll_wait returns EINTR after SIGCONT, so its timers come
    /// before its reads): it reads them before it judges any stream or PING overdue, so the answered
    /// notifications count sent and none goes twice. The stream timeout is cut to 3 s here so that a
    /// 5-s stop passes it.
    @Test("a sender stopped past its stream timeout, its answers waiting unread in the socket, sends none of them twice")
    func aSenderStoppedPastItsTimersSendsNothingTwice() throws {
        // Stopped past the stream timeout; the stand-in answers meanwhile, after its 1 s.
        _ = try Self.stopSenderMidPush(count: 400, stopMicroseconds: 5_000_000, apnsFlags: ["--apns-stream-timeout", "3"])
    }

    /// Pushes to `count` devices through a stand-in that answers after 1 s, stops the apns sender
    /// (SIGSTOP) for `stopMicroseconds` once the stand-in has 100 of them, and expects every device
    /// sent once, counted from the stand-in's log.
    static func stopSenderMidPush(count: Int, stopMicroseconds: UInt32, apnsFlags: [String]) throws -> PushStack {
        let push = try PushStack(apnsFlags: apnsFlags, gatewayFlags: ["--register-rate", "0"])
        _ = try push.devices(count, token: Self.token)
        try push.waitUntilKnown(count: count)
        try push.apns.delay(1)
        let msgID = try #require(try push.push(to: .string("all"))["msg_id"]?.string)
        #expect(try eventually(30, every: 10_000) { try push.apns.count().requests >= 100 })
        let apns = try #require(push.stack.services["apns"]?.process.processIdentifier)
        kill(apns, SIGSTOP)
        usleep(stopMicroseconds)
        kill(apns, SIGCONT)
        try push.apns.delay(0)
        let status = try push.waitUntilDone(msgID, within: 120)
        #expect(status["sent"]?.number == Double(count), "\(status)")
        let requests = try push.received(msgID)
        let tokens = Set(requests.compactMap { $0["token"]?.string })
        #expect(tokens.count == count && requests.count == count, "\(requests.count - tokens.count) sent twice")
        return push
    }

    @Test("app B's one-device push reaches APNs within 250 ms (the median of six; none past 500 ms) while app F keeps 3,000-device pushes coming for 10 s")
    func oneAppsFloodDoesNotDelayAnother() throws {
        try Self.smallAppIsServedPromptly(busyApps: 0)
    }

    /// Every app busy at once must not add up to a queue in front of B: the senders' slots are shared
    /// by the apps sending, so a slot is free, or the next freed, for the app that starts a push.
    @Test("app B's one-device push reaches APNs within 250 ms (median of six) while ten other apps push to 100 devices every 0.3 s beside F's flood")
    func manyBusyAppsDoNotDelayAnother() throws {
        try Self.smallAppIsServedPromptly(busyApps: 10)
    }

    /// App F floods (a 3,000-device push every second for 10 s), `busyApps` more apps each push to
    /// their 100 devices every 0.3 s, and app B pushes to its one device six times: each must reach
    /// the stand-in promptly.
    static func smallAppIsServedPromptly(busyApps: Int) throws {
        // The stand-in is one Python process answering its streams first come, first served: every
        // stream it holds is ~1 ms of queue in front of B's (four connections of 100 streams made
        // 300-450 ms of it). One connection of 10 streams keeps its queue short, so what is measured
        // is PushBus's own scheduling; real APNs answers its streams in parallel.
        let push = try PushStack(appKey: "floodapp", apnsFlags: ["--apns-connections", "1", "--apns-streams", "10"],
                                 gatewayFlags: ["--register-rate", "0"])
        _ = try push.devices(3000, token: Self.token)
        try push.waitUntilKnown(count: 3000)
        // App B: its own key, one device; the busy apps: theirs, 100 devices each.
        let small = try Self.app(push, "smallapp", devices: 1, firstToken: 9999)[0]
        let busy = try (0..<busyApps).map { index in
            let key = "busyapp\(index)"
            _ = try Self.app(push, key, devices: 100, firstToken: 10_000 + 100 * index)
            return key
        }

        // F (and the busy apps) from threads of their own: F's three times what the stand-in answers
        // in that second, so F's backlog only grows.
        let senders = DispatchGroup()
        let stack = push.stack
        for (key, every) in [("floodapp", 1_000_000)] + busy.map({ ($0, 300_000) }) {
            senders.enter()
            Thread.detachNewThread {
                defer { senders.leave() }
                guard let client = try? stack.client() else { return }
                let end = Date().addingTimeInterval(10)
                while Date() < end {
                    _ = try? client.json("push.send", ["app_key": .string(key), "to": "all".json,
                                                       "body": .object(["platform": "ios".json, "notification": .object(["alert": "busy".json])])])
                    usleep(UInt32(every))
                }
            }
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
        print("app B's lag beside F's flood and \(busyApps) busy apps (s): \(lags.map { String(format: "%.3f", $0) }.joined(separator: ", "))")
        // The median, with a bound on the worst: on a 2-core machine whose second core the stand-in
        // takes, a durable commit or a scheduling hiccup of this machine's alone can add 100 ms.
        let sorted = lags.sorted()
        #expect(sorted[sorted.count / 2] <= 0.25 && sorted.last! <= 0.5,
                "B's one-device pushes reached APNs after \(lags) s while F and \(busyApps) apps pushed")
        senders.wait()
    }

    /// Creates app `key` with the stand-in's APNs key and `devices` devices; their registration IDs.
    static func app(_ push: PushStack, _ key: String, devices: Int, firstToken: Int) throws -> [String] {
        _ = try push.call("app.create", ["name": .string(key), "app_key": .string(key)])
        let saved = try push.call("apns.credentials", ["app_key": .string(key), "team_id": .string(ApnsStandIn.teamID),
                                                       "key_id": .string(ApnsStandIn.keyID), "bundle_id": .string(ApnsStandIn.bundleID),
                                                       "p8": .string(push.apns.p8)])
        try #require(saved.code == 0)
        let ids = try (0..<devices).map { n in
            try #require(try push.call("device.register", ["app_key": .string(key), "platform": "ios".json, "apns_token": .string(Self.token(firstToken + n)),
                                                           "device_id": .string("\(key)-\(n)")])["registration_id"]?.string)
        }
        #expect(try eventually(15) {
            try push.call("audience.resolve", ["app_key": .string(key), "registration_id": .array(ids.prefix(1).map { .string($0) })])["total"]?.number == 1
        })
        return ids
    }
}
