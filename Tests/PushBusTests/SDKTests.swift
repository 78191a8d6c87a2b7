import Foundation
import JSON
import PushBusSDK
import Testing

/// The device SDK in this test process against the real gateway, services and api over HTTPS with a
/// test CA: each seed call's code and result, the SDK's own checks (no request), the registration
/// across a restart, calls made while the gateway is down, and a device deleted by its app.
@Suite("device SDK (integration)", .serialized)
struct SDKTests {
    /// A stack with registration, tagging and badge, an app, and api serving HTTPS.
    final class Setup: @unchecked Sendable {
        let stack: TestStack
        /// With `withPush`: push, apns and the APNs stand-in too, the app holding the stand-in's key.
        let push: PushStack?
        let api: RunningProcess
        let apiPort = Ports.free()
        let certificates: (ca: String, certificate: String, key: String)
        let directory = TestPaths.temporaryDirectory("sdk")
        let appKey = "sdkapp"

        let channelPort = Ports.free()
        var channelFlags: [String] { ["--listen", "127.0.0.1:\(channelPort)", "--tls-cert", certificates.certificate, "--tls-key", certificates.key] }

        init(withPush: Bool = false) throws {
            certificates = try TestCertificates.make(in: directory)
            if withPush {
                let push = try PushStack(appKey: appKey, services: ["registration", "tagging", "badge", "analytics", "scheduler"])
                self.push = push
                stack = push.stack
            } else {
                push = nil
                stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "3000"])
                try stack.start(["registration", "tagging", "badge", "analytics"])
                _ = try stack.client().json("app.create", ["name": .string(appKey), "app_key": .string(appKey)])
            }
            api = try RunningProcess(TestPaths.executable("api"),
                                     ["--endpoint", stack.endpoint, "--data-dir", stack.dataDirectory, "--listen", "127.0.0.1:\(apiPort)",
                                      "--tls-cert", certificates.certificate, "--tls-key", certificates.key, "--request-timeout-ms", "1500",
                                      "--parent-pid", String(getpid())],
                                     logDirectory: stack.logDirectory)
            #expect(eventually(20) { (try? LoopbackSocket.connect(port: self.apiPort)).map { close($0); return true } ?? false })
        }

        deinit {
            api.kill()
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// A client keeping its state in `state` (a phone's storage), its completions on a queue of their own.
        func client(state: String = "phone") throws -> PushBusClient {
            let configuration = PushBusConfiguration(appKey: appKey, server: URL(string: "https://localhost:\(apiPort)")!,
                                                     channelURL: URL(string: "wss://localhost:\(channelPort)/v1/channel"),
                                                     stateDirectory: URL(fileURLWithPath: directory + "/" + state), caFile: certificates.ca)
            let client = try PushBusClient(configuration: configuration)
            client.callbackQueue = DispatchQueue(label: "sdk-test.callbacks")
            return client
        }
    }

    /// Runs `call` with a completion and waits for it (at most `seconds`); what the completion got.
    static func wait<T>(_ seconds: Double = 20, _ call: (@escaping (T) -> Void) -> Void) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Answer<T>()
        call { value in
            box.value = value
            done.signal()
        }
        // The semaphore orders the completion's write before this read.
        guard done.wait(timeout: .now() + seconds) == .success, let value = box.value else { throw StackError("no completion within \(seconds) s") }
        return value
    }

    /// What one completion handed over, written on the SDK's callback queue before the semaphore is signalled.
    final class Answer<T>: @unchecked Sendable {
        var value: T?
    }

    typealias TagsResult = (code: Int, tags: Set<String>?, seq: Int)

    @Test("each seed call answers the seed's code and result; the SDK's own checks send nothing")
    func seedCallsAnswerAsTheSeedSays() throws {
        let setup = try Setup()
        let client = try setup.client()
        let registered: (Int, String?) = try Self.wait { done in client.registrationIDCompletionHandler { done(($0, $1)) } }
        #expect(registered.0 == 0 && registered.1?.count == 20, "\(registered)")
        #expect(client.registrationID == registered.1)

        let set: TagsResult = try Self.wait { done in client.setTags(["news", "sports"], completion: { done(($0, $1, $2)) }, seq: 7) }
        #expect(set.code == 0 && set.tags == ["news", "sports"] && set.seq == 7)
        let added: TagsResult = try Self.wait { done in client.addTags(["vip"], completion: { done(($0, $1, $2)) }, seq: 8) }
        #expect(added.code == 0 && added.seq == 8)
        let deleted: TagsResult = try Self.wait { done in client.deleteTags(["sports"], completion: { done(($0, $1, $2)) }, seq: 9) }
        #expect(deleted.code == 0)
        let all: TagsResult = try Self.wait { done in client.getAllTags({ done(($0, $1, $2)) }, seq: 10) }
        #expect(all.code == 0 && all.tags == ["news", "vip"] && all.seq == 10, "\(all)")
        let valid: (Int, Bool) = try Self.wait { done in client.validTag("vip", completion: { code, _, _, isBind in done((code, isBind)) }, seq: 11) }
        #expect(valid == (0, true))
        let notBound: (Int, Bool) = try Self.wait { done in client.validTag("gold", completion: { code, _, _, isBind in done((code, isBind)) }, seq: 12) }
        #expect(notBound == (0, false))

        // Refused by the SDK itself, in the seed's order of checks: nothing goes out.
        let before = client.requestsSent
        let refusals: [(String, Int)] = [
            ("bad tag!", 6005), (String(repeating: "x", count: 41), 6006), ("", 6001),
        ]
        for (tag, code) in refusals {
            let refused: TagsResult = try Self.wait { done in client.addTags([tag], completion: { done(($0, $1, $2)) }, seq: 1) }
            #expect(refused.code == code, "\(tag.prefix(8)): \(refused)")
        }
        let tooMany: TagsResult = try Self.wait { done in client.setTags(Set((0..<1001).map { "t\($0)" }), completion: { done(($0, $1, $2)) }, seq: 1) }
        #expect(tooMany.code == 6007)
        let tooLarge: TagsResult = try Self.wait { done in
            client.setTags(Set((0..<200).map { "t\($0)" + String(repeating: "y", count: 30) }), completion: { done(($0, $1, $2)) }, seq: 1)
        }
        #expect(tooLarge.code == 6008)
        let badAlias: (Int, String?, Int) = try Self.wait { done in client.setAlias("no spaces", completion: { done(($0, $1, $2)) }, seq: 3) }
        #expect(badAlias.0 == 6003 && badAlias.2 == 3)
        let badMobile: PushBusError? = try Self.wait { done in client.setMobileNumber("12ab", completion: done) }
        #expect(badMobile?.code == 6023)
        let longMobile: PushBusError? = try Self.wait { done in client.setMobileNumber(String(repeating: "1", count: 21), completion: done) }
        #expect(longMobile?.code == 6025)
        #expect(client.requestsSent == before, "the SDK's own refusals sent \(client.requestsSent - before) requests")

        let alias: (Int, String?, Int) = try Self.wait { done in client.setAlias("alice", completion: { done(($0, $1, $2)) }, seq: 4) }
        #expect(alias.0 == 0 && alias.1 == "alice" && alias.2 == 4)
        let got: (Int, String?, Int) = try Self.wait { done in client.getAlias({ done(($0, $1, $2)) }, seq: 5) }
        #expect(got.0 == 0 && got.1 == "alice")
        let removed: (Int, String?, Int) = try Self.wait { done in client.deleteAlias({ done(($0, $1, $2)) }, seq: 6) }
        #expect(removed.0 == 0 && removed.1 == nil)
        let none: (Int, String?, Int) = try Self.wait { done in client.getAlias({ done(($0, $1, $2)) }, seq: 7) }
        #expect(none.0 == 0 && none.1 == nil)

        let badge: PushBusError? = try Self.wait { done in client.setBadge(5, completion: done) }
        #expect(badge == nil)
        let stored = try setup.stack.client().json("badge.get", ["app_key": .string(setup.appKey), "registration_id": .string(registered.1 ?? "")])
        #expect(stored["value"]?.number == 5, "\(stored)")
        let outOfRange: PushBusError? = try Self.wait { done in client.setBadge(100_000, completion: done) }
        #expect(outOfRange?.code == 6017)
        let mobile: PushBusError? = try Self.wait { done in client.setMobileNumber("+8613800138000", completion: done) }
        #expect(mobile == nil)
        let language: PushBusError? = try Self.wait { done in client.setUserLanguage("fr", completion: done) }
        #expect(language == nil)
        let device = try setup.stack.client().json("device.get", ["app_key": .string(setup.appKey), "registration_id": .string(registered.1 ?? "")])
        #expect(device["device"]?["language"]?.string == "fr" && device["device"]?["mobile"]?.string == "+8613800138000", "\(device)")
        let cleaned: TagsResult = try Self.wait { done in client.cleanTags({ done(($0, $1, $2)) }, seq: 13) }
        #expect(cleaned.code == 0 && cleaned.tags == nil)
    }

    @Test("the registration survives a restart of the SDK: the same ID, kept in a 0600 file, and a new token re-registers it signed")
    func theRegistrationSurvivesARestart() throws {
        let setup = try Setup()
        let first = try setup.client()
        let registered: (Int, String?) = try Self.wait { done in first.register { done(($0, $1)) } }
        #expect(registered.0 == 0)
        let file = setup.directory + "/phone/pushbus-device.json"
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the state file is \(String(mode ?? 0, radix: 8))")

        // A new process (the app launched again): the same ID, known without asking.
        first.close()
        let again = try setup.client()
        let known: (Int, String?) = try Self.wait { done in again.registrationIDCompletionHandler { done(($0, $1)) } }
        #expect(known.0 == 0 && known.1 == registered.1)
        #expect(again.requestsSent == 0)
        // A new APNs token: registered again, signed by the device, the same ID back, the token stored.
        let token = Data((0..<32).map { UInt8($0) })
        let refreshed: (Int, String?) = try Self.wait { done in again.register(apnsToken: token) { done(($0, $1)) } }
        #expect(refreshed.0 == 0 && refreshed.1 == registered.1)
        let device = try setup.stack.client().json("device.get", ["app_key": .string(setup.appKey), "registration_id": .string(registered.1 ?? "")])
        #expect(device["device"]?["apns_token"]?.string == token.map { String(format: "%02x", $0) }.joined(), "\(device)")
        // Another phone's storage is another install.
        let other = try setup.client(state: "other-phone")
        let otherID: (Int, String?) = try Self.wait { done in other.register { done(($0, $1)) } }
        #expect(otherID.0 == 0 && otherID.1 != registered.1)
    }

    @Test("tags, alias and MA calls made while the gateway is down for 10 s each complete once after it returns, in the order made")
    func callsWaitOutAStoppedGatewayInOrder() throws {
        let setup = try Setup()
        let client = try setup.client()
        _ = try Self.wait { (done: @escaping ((Int, String?)) -> Void) in client.register { done(($0, $1)) } }
        let started: MAInitResult = try Self.wait { done in client.maStart(completion: done) }
        let euid = try #require(started.euid)
        setup.stack.gateway?.kill()
        let order = Locked<[String]>([])
        let finished = DispatchSemaphore(value: 0)
        for tag in ["a", "b", "c"] {
            client.addTags([tag], completion: { code, _, _ in
                order.update { $0.append("\(tag):\(code)") }
                finished.signal()
            }, seq: 0)
        }
        client.setAlias("later", completion: { code, _, _ in
            order.update { $0.append("alias:\(code)") }
            finished.signal()
        }, seq: 0)
        // Not idempotent: done twice, it would read 2.
        client.increaseProperty("visits", by: 1, completion: { code, _ in
            order.update { $0.append("increase:\(code)") }
            finished.signal()
        })
        client.eventRecord("while-down")
        client.flushEvents { code, accepted in
            order.update { $0.append("events:\(code):\(accepted)") }
            finished.signal()
        }
        sleep(10)
        #expect(order.get().isEmpty, "answered while the gateway was down: \(order.get())")
        try setup.stack.startGateway()
        for _ in 0..<6 { #expect(finished.wait(timeout: .now() + 60) == .success) }
        usleep(500_000)
        #expect(order.get() == ["a:0", "b:0", "c:0", "alias:0", "increase:0", "events:0:1"], "\(order.get())")
        let all: TagsResult = try Self.wait { done in client.getAllTags({ done(($0, $1, $2)) }, seq: 0) }
        #expect(all.tags == ["a", "b", "c"])
        let profile = try setup.stack.client().json("ma.profile", ["app_key": .string(setup.appKey), "euid": .string(euid)])
        #expect(profile["properties"]?["visits"]?.number == 1, "increased once: \(profile)")
        let events = try setup.stack.client().json("stats.events", ["app_key": .string(setup.appKey), "name": .string("while-down"), "bucket": .string("day"),
                                                                      "from": .string(ISO8601DateFormatter().string(from: Date().addingTimeInterval(-86400))),
                                                                      "to": .string(ISO8601DateFormatter().string(from: Date().addingTimeInterval(86400)))])
        guard case .array(let buckets)? = events["buckets"] else { throw StackError("no buckets: \(events)") }
        #expect(buckets.compactMap { $0["count"]?.number }.reduce(0, +) == 1, "reported once: \(events)")
    }

    @Test("a local notification added through the SDK fires and reaches the APNs stand-in; find and remove see it; badge 5 then a +1 push gives 6")
    func localNotificationsAndTheBadgeReachAPNs() throws {
        let setup = try Setup(withPush: true)
        let push = try #require(setup.push)
        let client = try setup.client()
        let token = Data(repeating: 0xAB, count: 32)
        let hex = token.map { String(format: "%02x", $0) }.joined()
        let registered: (Int, String?) = try Self.wait { done in client.register(apnsToken: token) { done(($0, $1)) } }
        let id = try #require(registered.1)
        try push.waitUntilKnown([id])

        let request = NotificationRequest(requestIdentifier: "wake", content: NotificationContent(title: "Wake", body: "up", badge: 1),
                                          trigger: NotificationTrigger(.timeInterval(2)))
        let added: [String: Any] = try Self.wait { done in
            var withHandler = request
            withHandler.completionHandler = done
            client.addNotification(withHandler)
        }
        #expect(added["code"] as? Int == 0 && added["identifier"] as? String == "wake", "\(added)")
        let pending: [[String: Any]] = try Self.wait { done in
            client.findNotification(NotificationIdentifier(identifiers: ["wake"], delivered: false, findCompletionHandler: done))
        }
        #expect(pending.count == 1, "\(pending)")
        #expect(try eventually(30) { try push.apns.requests().contains { $0["token"]?.string == hex } }, "the local notification never reached APNs")

        // Another one, removed before it fires: found no more.
        let later: [String: Any] = try Self.wait { done in
            client.addNotification(NotificationRequest(requestIdentifier: "later", content: NotificationContent(body: "later"),
                                                       trigger: NotificationTrigger(.timeInterval(3600)), completionHandler: done))
        }
        #expect(later["code"] as? Int == 0)
        let removed: Int = try Self.wait { done in client.removeNotification(NotificationIdentifier(identifiers: ["later"]), completion: done) }
        #expect(removed == 0)
        let gone: [[String: Any]] = try Self.wait { done in
            client.findNotification(NotificationIdentifier(identifiers: ["later"], findCompletionHandler: done))
        }
        #expect(gone.isEmpty, "\(gone)")

        // The server-kept badge: set by the app to 5, raised by a push's +1.
        let badge: PushBusError? = try Self.wait { done in client.setBadge(5, completion: done) }
        #expect(badge == nil)
        let msgID = try #require(try push.push(to: .object(["registration_id": .array([.string(id)])]),
                                               ios: ["alert": .string("one more"), "badge": .string("+1")])["msg_id"]?.string)
        _ = try push.waitUntilDone(msgID)
        let sent = try push.received(msgID)
        #expect(sent.first?["payload"]?["aps"]?["badge"]?.number == 6, "\(sent)")
    }

    @Test("a custom message reaches the app once and is acknowledged, across a kill -9 and restart of channel, even when the server sends it again")
    func customMessagesOnceAcrossAChannelRestart() throws {
        let setup = try Setup(withPush: true)
        let push = try #require(setup.push)
        try setup.stack.startService("channel", extra: setup.channelFlags)
        let client = try setup.client()
        let received = Locked<[String]>([])
        let slow = Locked(false)
        client.onMessage = { message in
            received.update { $0.append(message["msg_id"] as? String ?? "?") }
            // While the app handles it, the channel dies: the acknowledgement cannot reach it.
            if slow.get() { sleep(3) }
        }
        let registered: (Int, String?) = try Self.wait { done in client.register { done(($0, $1)) } }
        let id = try #require(registered.1)
        try push.waitUntilKnown([id])
        client.connectChannel()
        #expect(eventually(20) { client.channelState.open }, "the channel never opened")
        func send(_ text: String) throws -> String {
            let reply = try push.call("push.send", ["app_key": .string(setup.appKey), "to": .object(["registration_id": .array([.string(id)])]),
                                                    "body": .object(["platform": "all".json, "message": .object(["msg_content": .string(text)])])])
            return try #require(reply["msg_id"]?.string, "\(reply)")
        }
        let first = try send("one")
        #expect(eventually(20) { received.get() == [first] }, "\(received.get())")

        // The second arrives; the app takes 3 s with it, and the channel is killed meanwhile, so its
        // acknowledgement is lost and the restarted channel sends it again.
        slow.set(true)
        let second = try send("two")
        #expect(eventually(20) { received.get().count == 2 })
        setup.stack.services["channel"]?.kill()
        _ = setup.stack.services["channel"]?.waitForExit(10)
        try setup.stack.startService("channel", extra: setup.channelFlags)
        slow.set(false)
        #expect(eventually(40) { client.channelState.open && client.channelState.connections >= 2 }, "no reconnect: \(client.channelState)")
        // A third, sent after the restart, arrives; the second, sent again, is acknowledged but not handed over twice.
        let third = try send("three")
        #expect(eventually(30) { received.get().contains(third) }, "\(received.get())")
        sleep(2)
        #expect(received.get() == [first, second, third], "\(received.get())")
        #expect(client.channelState.repeats >= 1, "the server never sent the second again, so this test showed nothing: \(client.channelState)")
        client.disconnectChannel()
    }

    @Test("TikPush's channels: the device's own list answers at once and survives a restart, the server follows it, sync settles the whole list")
    func channelSubscriptionsOfflineFirst() throws {
        let setup = try Setup()
        let client = try setup.client()
        _ = try Self.wait { (done: @escaping ((Int, String?)) -> Void) in client.register { done(($0, $1)) } }
        let subscribed: Int = try Self.wait { done in client.registerForChannel("scores", expiresAt: Date().addingTimeInterval(3600),
                                                                                 backgroundPush: true, completion: done) }
        #expect(subscribed == 0 && client.isRegisteredForChannel("scores"))
        let expired: Int = try Self.wait { done in client.registerForChannel("old", expiresAt: Date().addingTimeInterval(-60), completion: done) }
        #expect(!client.isRegisteredForChannel("old"), "an expired subscription is not registered (the server answered \(expired))")
        let status: (Int, Bool) = try Self.wait { done in client.channelStatus("scores") { done(($0, $1)) } }
        #expect(status == (0, true))
        // Another launch reads the same list.
        client.close()
        let again = try setup.client()
        #expect(again.isRegisteredForChannel("scores"))
        let removed: Int = try Self.wait { done in again.unregisterForChannel("scores", completion: done) }
        #expect(removed == 0 && !again.isRegisteredForChannel("scores"))
        let gone: (Int, Bool) = try Self.wait { done in again.channelStatus("scores") { done(($0, $1)) } }
        #expect(gone == (0, false))
        // The whole list, settled at once: what the server holds afterwards is the device's list.
        _ = try Self.wait { (done: @escaping (Int) -> Void) in again.registerForChannel("news", completion: done) }
        let synced: (Int, [String]) = try Self.wait { done in again.syncChannels { done(($0, $1)) } }
        #expect(synced.0 == 0 && synced.1.contains("news") && !synced.1.contains("scores"), "\(synced)")
        let reset: Int = try Self.wait { done in again.resetAllSubscriptions(completion: done) }
        #expect(reset == 0 && !again.isRegisteredForChannel("news"))
    }

    @Test("MTMAService: start gives the EUID; identify, contacts, events and every property operation are stored, as the app's server reads them")
    func maCallsAreStored() throws {
        let setup = try Setup()
        let client = try setup.client()
        _ = try Self.wait { (done: @escaping ((Int, String?)) -> Void) in client.register { done(($0, $1)) } }
        let early: (Int, String) = try Self.wait { done in client.setProperty(["level": 1], completion: { done(($0, $1)) }) }
        #expect(early.0 == -2, "before start: \(early)")
        let started: MAInitResult = try Self.wait { done in client.maStart(completion: done) }
        let euid = try #require(started.euid, "\(started)")
        #expect(started.isSuccess && client.euid == euid)
        let identified: (Int, String) = try Self.wait { done in client.identifyAccount(MAUserID(userID: "user-42", email: "a@example.com"),
                                                                                          completion: { done(($0, $1)) }) }
        #expect(identified.0 == 0, "\(identified)")
        let contact: (Int, String) = try Self.wait { done in client.setUserContact(["mobile_phone": "+8613800000000"], completion: { done(($0, $1)) }) }
        #expect(contact.0 == 0, "\(contact)")
        let operations: [(String, (@escaping PushBusClient.MACompletion) -> Void)] = [
            ("set", { client.setProperty(["level": 3, "name": "Ann"], completion: $0) }),
            ("set one", { client.setProperty("city", to: "Oslo", completion: $0) }),
            ("increase", { client.increaseProperty("level", by: 2, completion: $0) }),
            ("add", { client.addProperty("hobbies", values: ["chess", "golf"], completion: $0) }),
            ("remove", { client.removeProperty("hobbies", values: ["golf"], completion: $0) }),
            ("delete", { client.deleteProperty("name", completion: $0) }),
            ("add object", { client.addObjectArrayProperty("orders", object: ["id": "o1", "total": 10], completion: $0) }),
            ("update object", { client.updateObjectArrayProperty("orders", identifierKey: "id", identifierValue: "o1", values: ["total": 12], completion: $0) }),
        ]
        for (name, call) in operations {
            let result: (Int, String) = try Self.wait { done in call { done(($0, $1)) } }
            #expect(result.0 == 0, "\(name): \(result)")
        }
        let badChannel: (Int, String) = try Self.wait { done in client.setChannelValue(channelID: 0, values: ["x"], completion: { done(($0, $1)) }) }
        #expect(badChannel.0 == -3)
        client.setMaxEventCacheCount(100)
        client.eventRecord("purchase", properties: ["sku": "a1"])
        client.eventRecord("purchase", properties: ["sku": "b2"])
        let flushed: (Int, Int) = try Self.wait { done in client.flushEvents { done(($0, $1)) } }
        #expect(flushed == (0, 2), "\(flushed)")

        // The SDK's session timeout cuts this device's sessions: two visits 2 s apart, 1 s allowed, are two sessions.
        let rest = try ApiServer(stack: setup.stack)
        let auth = rest.basic(setup.appKey)
        let hours = { () throws -> String in
            let format = ISO8601DateFormatter()
            return "from=\(format.string(from: Date().addingTimeInterval(-7200)))&to=\(format.string(from: Date().addingTimeInterval(3600)))"
        }
        func count(_ name: String) throws -> Int {
            let answer = try rest.send("GET", "/v4/ma/events?\(try hours())&bucket=hour&name=\(name)", authorization: auth)
            #expect(answer.status == 200, "\(answer)")
            guard case .array(let buckets)? = answer.body["buckets"] else { throw StackError("no buckets: \(answer)") }
            return buckets.compactMap { $0["count"]?.number }.reduce(0) { $0 + Int($1) }
        }
        let sessionsBefore = try count("%24session")
        client.setNoActiveSessionEndDurationTime(1)
        for _ in 0..<2 {
            usleep(2_200_000)
            client.eventRecord("visit")
        }
        let visits: (Int, Int) = try Self.wait { done in client.flushEvents { done(($0, $1)) } }
        #expect(visits == (0, 2), "\(visits)")
        #expect(try count("%24session") - sessionsBefore == 2, "a session per visit, cut by the SDK's 1 s timeout")
        #expect(try count("purchase") == 2)

        // A cache of large events goes in several reports, each within what the edge takes (64 KiB):
        // 300 events of ~400 bytes would be one 120 KB body, refused 413 and lost.
        client.setMaxEventCacheCount(500)
        for index in 0..<300 { client.eventRecord("bulky", properties: ["n": index, "note": String(repeating: "x", count: 360)]) }
        let bulky: (Int, Int) = try Self.wait { done in client.flushEvents { done(($0, $1)) } }
        #expect(bulky == (0, 300), "\(bulky)")
        #expect(try count("bulky") == 300)

        // Events recorded but not yet reported when the app ends are reported by its next launch.
        do {
            var first: PushBusClient? = try setup.client(state: "second-phone")
            let started: MAInitResult = try Self.wait { done in first!.maStart(completion: done) }
            #expect(started.isSuccess, "\(started)")
            first!.setReportInterval(3600)
            first!.eventRecord("before-exit", properties: ["n": 1])
            first!.eventRecord("before-exit", properties: ["n": 2])
            first = nil
            let relaunched = try setup.client(state: "second-phone")
            let carried: (Int, Int) = try Self.wait { done in relaunched.flushEvents { done(($0, $1)) } }
            #expect(carried == (0, 2), "the last launch's events: \(carried)")
            #expect(try count("before-exit") == 2)
        }

        // What the app's server reads over REST (HTTP Basic, app_key and master secret).
        let answer = try rest.send("GET", "/v4/ma/users/\(euid)", authorization: auth)
        #expect(answer.status == 200, "\(answer)")
        let profile = answer.body
        _ = try setup.stack.client().json("app.create", ["name": .string("other"), "app_key": .string("otherapp")])
        #expect(try rest.send("GET", "/v4/ma/users/\(euid)", authorization: rest.basic("otherapp")).status == 404, "another app's user")
        #expect(try rest.send("GET", "/v4/ma/users/\(euid)", authorization: nil).status == 401)
        #expect(try rest.send("GET", "/v4/ma/users/nobody", authorization: auth).status == 404)
        #expect(profile["properties"]?["level"]?.number == 5, "\(profile)")
        #expect(profile["properties"]?["city"]?.string == "Oslo")
        #expect(profile["properties"]?["name"] == nil || profile["properties"]?["name"] == .null)
        #expect(profile["properties"]?["hobbies"] == .array(["chess".json]), "\(profile)")
        #expect(profile["contacts"]?["mobile_phone"]?.string == "+8613800000000", "\(profile)")
        #expect("\(profile["identities"] ?? .null)".contains("user-42"), "\(profile)")

        // The right to erasure: the user is gone, and the SDK's next call on that EUID hears -2.
        #expect(try rest.send("DELETE", "/v4/ma/users/\(euid)", authorization: auth).status == 200)
        #expect(try rest.send("GET", "/v4/ma/users/\(euid)", authorization: auth).status == 404)
        let erased: (Int, String) = try Self.wait { done in client.setProperty("city", to: "Bergen", completion: { done(($0, $1)) }) }
        #expect(erased.0 == -2, "\(erased)")
    }

    @Test("an in-app message arrives on pageEnterTo of its page (not another); a notification_reminder arrives as a reminder once the app reported notifications denied")
    func inAppMessagesAndReminders() throws {
        let setup = try Setup(withPush: true)
        let push = try #require(setup.push)
        try setup.stack.startService("channel", extra: setup.channelFlags)
        let client = try setup.client()
        let received = Locked<[String]>([])
        client.onMessage = { message in received.update { $0.append("\(message["kind"] as? String ?? "?"):\(message["msg_id"] as? String ?? "?")") } }
        let byKind = Locked<[String]>([])
        client.onInAppMessage = { message in byKind.update { $0.append("inapp:\(message["title"] as? String ?? "?")") } }
        client.onReminder = { _ in byKind.update { $0.append("reminder") } }
        client.onCustomMessage = { _ in byKind.update { $0.append("custom") } }
        let registered: (Int, String?) = try Self.wait { done in client.register(apnsToken: Data(repeating: 0xCD, count: 32)) { done(($0, $1)) } }
        let id = try #require(registered.1)
        try push.waitUntilKnown([id])
        client.connectChannel()
        #expect(eventually(20) { client.channelState.open })
        func send(_ body: [String: JSONValue], options: [String: JSONValue] = [:]) throws -> String {
            var content = body
            content["platform"] = "all".json
            if !options.isEmpty { content["options"] = .object(options) }
            let reply = try push.call("push.send", ["app_key": .string(setup.appKey), "to": .object(["registration_id": .array([.string(id)])]),
                                                    "body": .object(content)])
            return try #require(reply["msg_id"]?.string, "\(reply)")
        }
        let inapp = try send(["inapp_message": .object(["type": "banner".json, "title": "Sale".json, "content": "50% off".json,
                                                        "target": .array(["home".json])])])
        client.pageEnterTo("settings")
        sleep(1)
        #expect(received.get().isEmpty, "\(received.get())")
        client.pageLeave("settings")
        client.pageEnterTo("home")
        #expect(eventually(20) { received.get() == ["inapp:\(inapp)"] }, "\(received.get())")

        let denied: PushBusError? = try Self.wait { done in client.setNotificationAuthorization("denied", completion: done) }
        #expect(denied == nil)
        let reminder = try send(["notification": .object(["ios": .object(["alert": .object(["title": "Hi".json, "body": "remember".json])])])],
                                options: ["notification_reminder": .bool(true)])
        #expect(eventually(20) { received.get().contains("reminder:\(reminder)") }, "\(received.get())")
        #expect(byKind.get() == ["inapp:Sale", "reminder"], "the delegates by kind: \(byKind.get())")
        client.disconnectChannel()
    }

    @Test("a device its app deletes stops its SDK: 1008, the app told once, the registration forgotten")
    func aDeletedDeviceStopsItsSDK() throws {
        let setup = try Setup()
        let client = try setup.client()
        let registered: (Int, String?) = try Self.wait { done in client.register { done(($0, $1)) } }
        let id = try #require(registered.1)
        let told = Locked(0)
        client.onDeviceDeleted = { told.update { $0 += 1 } }
        // The app's server deletes the device (signed as the app).
        #expect(try setup.stack.client().json("device.delete", ["app_key": .string(setup.appKey), "registration_id": .string(id)])["code"]?.number == 0)
        var code = 0
        _ = try eventually(30) {
            code = try Self.wait { done in client.addTags(["x"], completion: { code, _, _ in done(code) }, seq: 0) }
            return code == 1008
        }
        #expect(code == 1008)
        #expect(eventually(5) { told.get() == 1 })
        #expect(client.registrationID == nil)
        let sent = client.requestsSent
        let after: Int = try Self.wait { done in client.addTags(["y"], completion: { code, _, _ in done(code) }, seq: 0) }
        #expect(after == 1008 && client.requestsSent == sent, "a stopped SDK sends nothing")
        #expect(told.get() == 1)
        // Restarted, it stays stopped: the deletion is remembered.
        client.close()
        let restarted = try setup.client()
        #expect(restarted.registrationID == nil)
    }
}
