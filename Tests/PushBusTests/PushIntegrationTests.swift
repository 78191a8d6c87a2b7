import Foundation
import JSON
import PushKit
import Testing

/// The sending path end to end: real gateway, registration, tagging, badge, analytics, push and
/// apns processes, and the APNs stand-in over HTTP/2 with TLS checking every provider token.
@Suite("Push through APNs", .serialized)
struct PushIntegrationTests {
    static func token(_ n: Int) -> String { String(format: "%064x", 0xA000_0000 + n) }

    @Test("tag, tag_and, tag_not, alias and all reach exactly their devices, with the right headers")
    func audiences() throws {
        let push = try PushStack()
        let a = try push.device(Self.token(1), tags: ["vip", "beta"], alias: "alice")
        let b = try push.device(Self.token(2), tags: ["vip"])
        let c = try push.device(Self.token(3), tags: ["beta"], alias: "carol")
        try push.waitUntilKnown([a, b, c])

        func tokens(_ to: JSONValue) throws -> Set<String> {
            let reply = try push.push(to: to)
            let msgID = try #require(reply["msg_id"]?.string, "\(reply)")
            _ = try push.waitUntilDone(msgID)
            return Set(try push.received(msgID).compactMap { $0["token"]?.string })
        }
        #expect(try tokens(.object(["tag": .array([.string("vip")])])) == [Self.token(1), Self.token(2)])
        #expect(try tokens(.object(["tag_and": .array([.string("vip"), .string("beta")])])) == [Self.token(1)])
        #expect(try tokens(.object(["tag": .array([.string("beta")]), "tag_not": .array([.string("vip")])])) == [Self.token(3)])
        #expect(try tokens(.object(["alias": .array([.string("alice"), .string("carol")])])) == [Self.token(1), Self.token(3)])
        #expect(try tokens(.string("all")) == [Self.token(1), Self.token(2), Self.token(3)])

        let first = try #require(try push.apns.requests().first)
        #expect(first["headers"]?["apns-topic"]?.string == ApnsStandIn.bundleID)
        #expect(first["headers"]?["apns-push-type"]?.string == "alert")
        #expect(first["headers"]?["apns-priority"]?.string == "10")
        #expect(first["headers"]?["apns-collapse-id"]?.string == first["payload"]?["_j_msgid"]?.string)
        #expect(first["payload"]?["aps"]?["alert"]?.string == "hello")
    }

    @Test("a push near APNs' payload limit reaches every device: its apns.send requests stay under the bus's limit")
    func payloadsNearTheLimit() throws {
        let push = try PushStack()
        let devices = try push.devices(150, token: { Self.token(5000 + $0) })
        try push.waitUntilKnown(devices)
        // 2,700 bytes of alert with 900 quotes (a payload of about 3,700 bytes): each quote doubled again when
        // the payload is written into apns.send, a hundred of them are far over the bus's 256 KiB.
        let alert = String(repeating: "\"ab\" ", count: 450)
        let reply = try push.push(to: .object(["registration_id": .array(devices.map(JSONValue.string))]), ios: ["alert": .string(alert)])
        let msgID = try #require(reply["msg_id"]?.string, "\(reply)")
        let status = try push.waitUntilDone(msgID, within: 60)
        #expect(status["sent"]?.number == 150, "\(status)")
        #expect(Set(try push.received(msgID).compactMap { $0["token"]?.string }).count == 150)
        #expect(try push.received(msgID).first?["payload"]?["aps"]?["alert"]?.string == alert)
    }

    @Test("badge +1 twice gives 1 then 2; a reused cid answers the first msg_id and sends nothing")
    func badgesAndIdempotency() throws {
        let push = try PushStack()
        let a = try push.device(Self.token(11))
        try push.waitUntilKnown([a])
        let to: JSONValue = .object(["registration_id": .array([.string(a)])])
        var badges: [Double] = []
        for _ in 0..<2 {
            let msgID = try #require(try push.push(to: to, ios: ["alert": .string("count"), "badge": .string("+1")])["msg_id"]?.string)
            _ = try push.waitUntilDone(msgID)
            badges += try push.received(msgID).compactMap { $0["payload"]?["aps"]?["badge"]?.number }
        }
        #expect(badges == [1, 2])
        #expect(try push.call("badge.get", ["app_key": .string(push.appKey), "registration_id": .string(a)])["value"]?.number == 2)

        let first = try push.push(to: to, options: ["cid": .string("order-42")])
        let msgID = try #require(first["msg_id"]?.string)
        _ = try push.waitUntilDone(msgID)
        let again = try push.push(to: to, options: ["cid": .string("order-42")])
        #expect(again["code"]?.number == 0)
        #expect(again["msg_id"]?.string == msgID)
        usleep(500_000)
        #expect(try push.received(msgID).count == 1)
    }

    @Test("410 Unregistered and BadDeviceToken disable the token, and the next push skips it")
    func deadTokens() throws {
        let push = try PushStack()
        let gone = try push.device(Self.token(21), tags: ["t"])
        let bad = try push.device(Self.token(22), tags: ["t"])
        let fine = try push.device(Self.token(23), tags: ["t"])
        try push.waitUntilKnown([gone, bad, fine])
        try push.apns.rule(token: Self.token(21), status: 410, reason: "Unregistered", timestamp: ((Date().timeIntervalSince1970 + 5) * 1000).rounded())
        try push.apns.rule(token: Self.token(22), status: 400, reason: "BadDeviceToken")
        let to: JSONValue = .object(["tag": .array([.string("t")])])

        let first = try #require(try push.push(to: to)["msg_id"]?.string)
        let status = try push.waitUntilDone(first)
        #expect(status["sent"]?.number == 1)
        #expect(status["failed"]?["Unregistered"]?.number == 1)
        #expect(status["failed"]?["BadDeviceToken"]?.number == 1)
        let devices = try push.call("push.device_status", ["app_key": .string(push.appKey), "msg_id": .string(first),
                                                           "registration_ids": .array([.string(gone), .string(fine), .string("nobody")])])
        #expect(devices["devices"]?[gone]?["status"]?.string == "failed")
        #expect(devices["devices"]?[gone]?["reason"]?.string == "Unregistered")
        #expect(devices["devices"]?[fine]?["status"]?.string == "sent")
        #expect(devices["devices"]?["nobody"]?["status"]?.string == "not_target")

        #expect(try eventually(10) {
            try push.call("device.get", ["app_key": .string(push.appKey), "registration_id": .string(bad)])["device"]?["apns_token"] == nil
        })
        let second = try #require(try push.push(to: to)["msg_id"]?.string)
        _ = try push.waitUntilDone(second)
        #expect(try push.received(second).compactMap { $0["token"]?.string } == [Self.token(23)])
    }

    @Test("429 and 503 are retried after retry-after and then sent; an expired provider token is signed anew")
    func retries() throws {
        let push = try PushStack()
        let busy = try push.device(Self.token(31))
        let down = try push.device(Self.token(32))
        try push.waitUntilKnown([busy, down])
        try push.apns.rule(token: Self.token(31), status: 429, reason: "TooManyRequests", times: 2, retryAfter: 1)
        try push.apns.rule(token: Self.token(32), status: 503, reason: "ServiceUnavailable", times: 1)
        let msgID = try #require(try push.push(to: .object(["registration_id": .array([.string(busy), .string(down)])]))["msg_id"]?.string)
        let status = try push.waitUntilDone(msgID)
        #expect(status["sent"]?.number == 2)
        let answers = try push.received(msgID).map { ($0["token"]?.string ?? "", Int($0["status"]?.number ?? 0)) }
        #expect(answers.filter { $0.0 == Self.token(31) }.map(\.1) == [429, 429, 200])
        #expect(answers.filter { $0.0 == Self.token(32) }.map(\.1) == [503, 200])

        try push.apns.expireTokens()
        let later = try #require(try push.push(to: .object(["registration_id": .array([.string(busy)])]))["msg_id"]?.string)
        #expect(try push.waitUntilDone(later)["sent"]?.number == 1)
        let tries = try push.received(later)
        #expect(tries.map { $0["reason"]?.string ?? "" } == ["ExpiredProviderToken", ""])
        #expect(tries.first?["headers"]?["authorization"] != tries.last?["headers"]?["authorization"])
    }

    @Test("VoIP and Live Activity pushes carry their topic, push type and token")
    func voipAndLiveActivity() throws {
        let push = try PushStack()
        let a = try push.device(Self.token(41))
        try push.waitUntilKnown([a])
        try #require(try push.call("device.update", ["app_key": .string(push.appKey), "registration_id": .string(a),
                                                     "voip_token": .string(Self.token(42))]).code == 0)
        try #require(try push.call("device.live_activity_token", ["app_key": .string(push.appKey), "registration_id": .string(a),
                                                                  "live_activity_id": .string("match-7"), "token": .string(Self.token(43))]).code == 0)
        let voip = try push.call("push.send", ["app_key": .string(push.appKey), "to": .object(["registration_id": .array([.string(a)])]),
                                               "body": .object(["platform": .string("ios"), "voip": .object(["caller": .string("Bob")])])])
        let voipID = try #require(voip["msg_id"]?.string, "\(voip)")
        _ = try push.waitUntilDone(voipID)
        let call = try #require(try push.received(voipID).first)
        #expect(call["token"]?.string == Self.token(42))
        #expect(call["headers"]?["apns-topic"]?.string == ApnsStandIn.bundleID + ".voip")
        #expect(call["headers"]?["apns-push-type"]?.string == "voip")
        #expect(call["payload"]?["caller"]?.string == "Bob")

        let live = try push.call("push.send", [
            "app_key": .string(push.appKey), "to": .object(["live_activity_id": .string("match-7")]),
            "body": .object(["platform": .string("ios"), "live_activity": .object(["ios": .object([
                "event": .string("update"), "content-state": .object(["score": .string("2-1")])])])]),
        ])
        let liveID = try #require(live["msg_id"]?.string, "\(live)")
        _ = try push.waitUntilDone(liveID)
        let update = try #require(try push.received(liveID).first)
        #expect(update["token"]?.string == Self.token(43))
        #expect(update["headers"]?["apns-topic"]?.string == ApnsStandIn.bundleID + ".push-type.liveactivity")
        #expect(update["headers"]?["apns-push-type"]?.string == "liveactivity")
        #expect(update["payload"]?["aps"]?["content-state"]?["score"]?.string == "2-1")

        let unknown = try push.call("push.send", [
            "app_key": .string(push.appKey), "to": .object(["live_activity_id": .string("nope")]),
            "body": .object(["platform": .string("ios"), "live_activity": .object(["ios": .object([
                "event": .string("end"), "content-state": .object([:])])])]),
        ])
        #expect(unknown["code"]?.number == 1011)
    }
}

/// The sending path's other ways in and its results: a fired local notification, and the counts.
@Suite("Push: local notifications and status", .serialized)
struct PushDeliveryTests {
    @Test("a fired local notification arrives at APNs as an alert with its content")
    func localNotification() throws {
        let push = try PushStack(services: ["registration", "tagging", "badge", "analytics", "scheduler"])
        let a = try push.device(PushIntegrationTests.token(51))
        let added = try push.call("local.add", [
            "app_key": .string(push.appKey), "registration_id": .string(a), "identifier": .string("wake"),
            "content": .object(["title": .string("Wake up"), "body": .string("It is time"), "badge": .number(500), "sound": .string("default")]),
            "trigger": .object(["time_interval": .number(1)]),
        ])
        try #require(added.code == 0, "\(added)")
        var arrived: JSONValue?
        #expect(try eventually(20, every: 100_000) {
            arrived = try push.apns.requests().first { $0["token"]?.string == PushIntegrationTests.token(51) }
            return arrived != nil
        })
        let aps = arrived?["payload"]?["aps"]
        #expect(aps?["alert"]?["title"]?.string == "Wake up")
        #expect(aps?["alert"]?["body"]?.string == "It is time")
        #expect(aps?["badge"]?.number == 500, "the local notification's own badge, which no push could set")
        #expect(aps?["sound"]?.string == "default")
        #expect(arrived?["headers"]?["apns-push-type"]?.string == "alert")
    }

    @Test("push.status counts what the stand-in answered; a withdrawn message sends nothing more")
    func statusMatchesTheStandIn() throws {
        let push = try PushStack(pushFlags: ["--page-size", "5", "--batch-size", "3"])
        var ids: [String] = []
        for n in 0..<12 { ids.append(try push.device(PushIntegrationTests.token(60 + n), tags: ["fans"])) }
        try push.waitUntilKnown(ids)
        try push.apns.rule(token: PushIntegrationTests.token(60), status: 400, reason: "BadTopic")
        try push.apns.rule(token: PushIntegrationTests.token(61), status: 410, reason: "Unregistered")
        let msgID = try #require(try push.push(to: .object(["tag": .array([.string("fans")])]))["msg_id"]?.string)
        let status = try push.waitUntilDone(msgID)
        let received = try push.received(msgID)
        #expect(status["targets"]?.number == 12)
        #expect(status["sent"]?.number == Double(received.filter { $0["status"]?.number == 200 }.count))
        #expect(status["sent"]?.number == 10)
        #expect(status["failed"]?["BadTopic"]?.number == 1)
        #expect(status["failed"]?["Unregistered"]?.number == 1)
        #expect(status["pending"]?.number == 0)
        #expect(Set(received.compactMap { $0["token"]?.string }).count == received.count, "one notification per device")
        // The answers reach analytics' statistics, each once.
        var stats: JSONValue?
        #expect(try eventually(15, every: 100_000) {
            stats = try push.call("stats.message", ["app_key": .string(push.appKey), "msg_ids": .array([.string(msgID)])])["messages"]?[msgID]
            return stats?["sent"]?.number == 10 && stats?["failed"]?.number == 2
        }, "\(String(describing: stats))\npush:\n\(push.stack.services["push"]?.output.suffix(3000) ?? "")\nanalytics:\n\(push.stack.services["analytics"]?.output.suffix(2000) ?? "")")

        // A big push spread over a minute is withdrawn before most of it goes out.
        let slow = try #require(try push.push(to: .object(["tag": .array([.string("fans")])]), options: ["big_push_duration": .number(1)])["msg_id"]?.string)
        usleep(300_000)
        try #require(try push.call("push.withdraw", ["app_key": .string(push.appKey), "msg_id": .string(slow)]).code == 0)
        let sentBefore = try push.received(slow).count
        usleep(6_000_000)
        #expect(try push.received(slow).count == sentBefore, "nothing more after the withdrawal")
        #expect(sentBefore < 12)
        // The withdrawn remainder ends as withdrawn: nothing stays pending for ever.
        var withdrawnStatus: JSONValue?
        #expect(try eventually(10, every: 100_000) {
            withdrawnStatus = try push.status(slow)
            return withdrawnStatus?["pending"]?.number == 0
        }, "\(String(describing: withdrawnStatus))")
        #expect(withdrawnStatus?["state"]?.string == "withdrawn")
        let targets = withdrawnStatus?["targets"]?.number ?? -1
        let accounted = (withdrawnStatus?["sent"]?.number ?? 0) + (withdrawnStatus?["withdrawn"]?.number ?? 0)
            + Self.total(withdrawnStatus?["failed"])
        #expect(accounted == targets && (withdrawnStatus?["withdrawn"]?.number ?? 0) > 0, "\(String(describing: withdrawnStatus))")
    }
}

extension PushDeliveryTests {
    /// The sum of a JSON object's numbers (failures by reason).
    static func total(_ counts: JSONValue?) -> Double {
        guard case .object(let object)? = counts else { return 0 }
        return object.dictionary.values.reduce(0) { $0 + ($1.number ?? 0) }
    }
}

/// APNs answering slowly.
@Suite("Push: a slow APNs", .serialized)
struct PushSlowApnsTests {
    @Test("a slow APNs delays the sends but duplicates none: a request the gateway gives up on was never handed to a sender")
    func slowApnsSendsEachOnce() throws {
        let push = try PushStack()
        var ids: [String] = []
        for n in 0..<30 { ids.append(try push.device(PushIntegrationTests.token(100 + n), tags: ["slow"])) }
        try push.waitUntilKnown(ids)
        try push.apns.delay(0.7)
        let push1 = try #require(try push.push(to: .object(["tag": .array([.string("slow")])]))["msg_id"]?.string)
        let push2 = try #require(try push.push(to: .object(["tag": .array([.string("slow")])]))["msg_id"]?.string)
        for msgID in [push1, push2] {
            let status = try push.waitUntilDone(msgID, within: 90)
            #expect(status["sent"]?.number == 30, "\(status)\n\(push.stack.services["push"]?.output.suffix(1500) ?? "")\n\(push.stack.services["apns"]?.output.suffix(1500) ?? "")\n\(push.stack.gateway?.output.suffix(1500) ?? "")")
            let tokens = try push.received(msgID).filter { $0["status"]?.number == 200 }.compactMap { $0["token"]?.string }
            #expect(tokens.count == 30 && Set(tokens).count == 30, "each device once: \(tokens.count) answers 200")
        }
    }

    @Test("a message withdrawn while its notification is in flight is not sent again by the retry")
    func withdrawnWhileInFlight() throws {
        let push = try PushStack()
        let a = try push.device(PushIntegrationTests.token(140))
        try push.waitUntilKnown([a])
        try push.apns.rule(token: PushIntegrationTests.token(140), status: 429, reason: "TooManyRequests", times: 1)
        try push.apns.delay(1)
        let msgID = try #require(try push.push(to: .object(["registration_id": .array([.string(a)])]))["msg_id"]?.string)
        usleep(400_000)  // the notification is at the stand-in, which answers in a second
        try #require(try push.call("push.withdraw", ["app_key": .string(push.appKey), "msg_id": .string(msgID)]).code == 0)
        try push.apns.delay(0)
        usleep(5_000_000)
        let answers = try push.received(msgID).map { Int($0["status"]?.number ?? 0) }
        #expect(answers == [429], "the 429 was answered, and nothing after the withdrawal: \(answers)")
        #expect(try push.status(msgID)?["state"]?.string == "withdrawn")
    }
}

/// Crashes in the middle of a large fan-out.
@Suite("Push: kill -9 mid-fan-out", .serialized)
struct PushCrashTests {
    @Test("kill -9 of push, then of apns, mid-fan-out of 20,000 devices: every device notified, none twice outside the in-flight window")
    func killsMidFanout() throws {
        let count = 20_000
        let push = try PushStack(gatewayFlags: ["--register-rate", "0", "--request-timeout-ms", "10000"])
        let token = { (n: Int) in String(format: "%064x", 0xC000_0000 + n) }
        _ = try push.devices(count, token: token)
        try push.waitUntilKnown(count: count)
        let msgID = try #require(try push.push(to: .string("all"))["msg_id"]?.string)

        func waitForSent(_ n: Int) throws {
            #expect(try eventually(120, every: 100_000) { try push.apns.count().sent >= n }, "the stand-in saw \(n) sent")
        }
        try waitForSent(4000)
        push.stack.services["push"]?.kill()
        try push.stack.startService("push")
        try waitForSent(11_000)
        push.stack.services["apns"]?.kill()
        try push.stack.startService("apns", extra: push.apns.senderFlags)
        let status = try push.waitUntilDone(msgID, within: 300)
        #expect(status["targets"]?.number == Double(count))
        #expect(status["sent"]?.number == Double(count))

        // From the stand-in's own log: each token answered 200 at least once; the repeats are bounded
        // by what one app can have in flight at a kill (`--app-in-flight`, 1,500 by default, per kill).
        var sent: [String: Int] = [:]
        for request in try push.received(msgID) where request["status"]?.number == 200 {
            sent[request["token"]?.string ?? "", default: 0] += 1
        }
        #expect(sent.count == count, "every device notified")
        let repeats = sent.values.reduce(0) { $0 + ($1 - 1) }
        let settings = PushSettings()
        let window = settings.appSlots * settings.batchSize
        #expect(repeats <= 2 * window, "\(repeats) repeats, more than two kills' window of \(window)")
        print("kill -9 mid-fan-out: \(count) devices, \(repeats) sent twice (the requests in flight at the two kills)")
    }
}
