import Client
import Foundation
import JSON
import Majordomo
import Schema
import SQLite
import Testing
import ZeroMQ

/// The real `gateway` and `registration` executables over TCP.
@Suite("registration (integration)", .serialized)
struct RegistrationIntegrationTests {
    @Test func everyRegistrationCommandThroughTheGateway() throws {
        let stack = try TestStack().start()
        let client = try stack.client()

        let app = try client.json("app.create", ["name": "demo".json, "seq": .number(1)])
        #expect(app.code == 0)
        #expect(app["seq"] == .number(1))
        let appKey = try #require(app["app_key"]?.string)

        let first = try client.json("device.register", ["app_key": appKey.json, "platform": "ios".json,
                                                        "device_id": "install-1".json, "apns_token": "a1b2".json])
        #expect(first["is_new"] == .bool(true))
        let id = try #require(first["registration_id"]?.string)
        let again = try client.json("device.register", ["app_key": appKey.json, "platform": "ios".json,
                                                        "device_id": "install-1".json, "registration_id": id.json])
        #expect(again["is_new"] == .bool(false))
        #expect(again["registration_id"] == id.json)

        let device = ["app_key": appKey.json, "registration_id": id.json]
        func with(_ extra: [String: JSONValue]) -> [String: JSONValue] { device.merging(extra) { $1 } }
        #expect(try client.json("device.update", with(["language": "zh_Hans".json, "timezone": "Europe/Paris".json,
                                                       "voip_token": "cafe".json])).code == 0)
        #expect(try client.json("device.mobile", with(["mobile": "+86-13800000000".json])).code == 0)
        #expect(try client.json("device.mobile", with(["mobile": "x1".json])).code == 6023)
        #expect(try client.json("device.mobile", with(["mobile": String(repeating: "1", count: 21).json])).code == 6025)
        #expect(try client.json("device.mobile", with(["mobile": "+1".json])).code == 6011, "a fourth set within 10 s")
        let start = try client.json("device.live_activity_start_token", with(["activity_attributes": "Pizza".json, "token": "0a0b".json]))
        #expect(start["activity_attributes"] == "Pizza".json)
        let live = try client.json("device.live_activity_token", with(["live_activity_id": "order-7".json, "token": "0c0d".json]))
        #expect(live["live_activity_id"] == "order-7".json)
        #expect(try client.json("device.live_activity_token", with(["live_activity_id": String(repeating: "z", count: 25).json,
                                                                    "token": "0c".json])).code == 6017)

        let stored = try #require(try client.json("device.get", device)["device"])
        #expect(stored["language"] == "zh_Hans".json)
        #expect(stored["timezone"] == "Europe/Paris".json)
        #expect(stored["voip_token"] == "cafe".json)
        #expect(stored["mobile"] == "+86-13800000000".json)
        #expect(stored["apns_token"] == "a1b2".json)
        #expect(stored["live_activity_start_tokens"] == .object(["Pizza": "0a0b".json]))
        #expect(stored["live_activity_tokens"] == .object(["order-7": "0c0d".json]))

        #expect(try client.json("device.update", with(["voip_token": .null])).code == 0)
        #expect(try client.json("device.get", device)["device"]?["voip_token"] == nil)
        #expect(try client.json("device.get", ["app_key": "someoneelse".json, "registration_id": id.json]).code == 1008)
        #expect(try client.json("device.delete", device).code == 0)
        let gone = try client.json("device.get", device)
        #expect(gone.code == 1008)
        #expect(gone["message"] == "device deleted".json)
    }

    @Test func acknowledgedDataSurvivesAKilledService() throws {
        let stack = try TestStack().start()
        let client = try stack.client()
        let id = try client.register(deviceID: "durable")
        #expect(try client.json("device.update", ["app_key": "app1".json, "registration_id": id.json,
                                                  "language": "th".json]).code == 0)
        stack.services["registration"]?.kill()
        try stack.waitForServiceGone("registration")
        try stack.startService("registration")
        let stored = try client.json("device.get", ["app_key": "app1".json, "registration_id": id.json])
        #expect(stored["device"]?["language"] == "th".json)
        #expect(try client.register(deviceID: "durable", registrationID: id) == id, "the install keeps its ID across restarts")
    }

    @Test func registrationsAndDeletionsArePublishedOnTheBus() throws {
        let stack = try TestStack().start()
        let client = try stack.client()
        let subscriber = try Socket.sub(stack.context, connect: stack.eventsOut, topics: ["device."])
        var poller = Poller([subscriber])

        // Subscriptions travel to the publisher asynchronously: register until the first event shows.
        var first: Message?
        for _ in 0..<50 where first == nil {
            _ = try client.register()
            if try poller.poll(timeout: 200).contains(subscriber) { first = try subscriber.receive() }
        }
        while try poller.poll(timeout: 300).contains(subscriber) { first = try subscriber.receive() }
        let previous = try JSONDecoder().decode(Event<DeviceRegisteredEvent>.self, from: try #require(first).frames[1])

        let id = try client.register(appKey: "events-app")
        let registered = try #require(try poller.poll(timeout: 3000).contains(subscriber) ? subscriber.receive() : nil)
        #expect(registered.frames[0] == Data("device.registered".utf8))
        let event = try JSONDecoder().decode(Event<DeviceRegisteredEvent>.self, from: registered.frames[1])
        #expect(event.body == DeviceRegisteredEvent(appKey: "events-app", registrationID: id, platform: "ios"))
        #expect(event.publisher == "registration")
        #expect(event.sequence == previous.sequence + 1, "sequence numbers have no gaps")
        #expect(event.time.hasSuffix("Z"))

        #expect(try client.json("device.delete", ["app_key": "events-app".json, "registration_id": id.json]).code == 0)
        let deleted = try #require(try poller.poll(timeout: 3000).contains(subscriber) ? subscriber.receive() : nil)
        #expect(deleted.frames[0] == Data("device.deleted".utf8))
        let gone = try JSONDecoder().decode(Event<DeviceDeletedEvent>.self, from: deleted.frames[1])
        #expect(gone.body.registrationID == id)
        #expect(gone.sequence == event.sequence + 1)
    }

    @Test func aBurstOfEventsArrivesWhole() throws {
        // A large credit lets one batch commit, and publish, thousands of events at once.
        // A loaded machine may take longer than the tests' short request deadline for the whole burst.
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "60000"])
        try stack.startGateway()
        try stack.startService("registration", extra: ["--credit", "5000"])
        let client = try stack.client()
        let subscriber = try Socket(stack.context, .sub)
        try subscriber.setHighWaterMarks(send: 0, receive: 0)
        try subscriber.subscribe("device.registered")
        try subscriber.connect(stack.eventsOut)
        var poller = Poller([subscriber])
        var subscribed = false
        for _ in 0..<50 where !subscribed {
            _ = try client.register()
            subscribed = try poller.poll(timeout: 200).contains(subscriber)
        }
        while try poller.poll(timeout: 300).contains(subscriber) { _ = try subscriber.receive() }

        let burst = 5000
        _ = try client.json("app.create", ["name": "burst".json, "app_key": "burst".json])
        let caller = try Socket.dealer(stack.context, connect: stack.endpoint)
        for n in 0..<burst {
            try caller.send(ClientMessage(service: "device", strings: ["device.register", #"{"app_key":"burst","platform":"ios","seq":\#(n)}"#]).frames)
        }
        var replies = 0
        var refusals: [String: Int] = [:]
        var callerPoller = Poller([caller])
        while replies < burst, try callerPoller.poll(timeout: 10_000).contains(caller) {
            while let reply = try caller.receive(wait: false) {
                replies += 1
                let body = reply.frames.last.map { String(decoding: $0, as: UTF8.self) } ?? ""
                if !body.contains(#""code":0"#) { refusals[String(body.prefix(120)), default: 0] += 1 }
            }
        }
        #expect(replies == burst)
        #expect(refusals.isEmpty, "every registration of the burst succeeds")
        var events = 0
        while events < burst, try poller.poll(timeout: 5000).contains(subscriber) {
            while try subscriber.receive(wait: false) != nil { events += 1 }
        }
        #expect(events == burst, "no event of the burst is dropped on the way")
    }

    @Test func anOnlineBackupHoldsEveryAcknowledgedDevice() throws {
        let stack = try TestStack().start()
        let client = try stack.client()
        for n in 0..<50 { _ = try client.register(deviceID: "backup-\(n)") }
        let out = TestPaths.temporaryDirectory("backup")
        let backup = try RunningProcess(TestPaths.executable("pushbus-backup"), ["--data-dir", stack.dataDirectory, "--out", out],
                                        logDirectory: stack.dataDirectory)
        #expect(backup.waitForExit(30) == 0, "\(backup.output)")
        let copy = try Database(path: "\(out)/registration.sqlite")
        #expect(try copy.value("SELECT COUNT(*) FROM devices").int == 50)
        #expect(try copy.value("PRAGMA integrity_check").string == "ok")
        #expect(FileManager.default.fileExists(atPath: "\(out)/server.key"), "the secrets travel with the data")
        #expect(try client.register(deviceID: "after-backup").count == 20, "the service kept serving")
    }
}
