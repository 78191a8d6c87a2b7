import Client
import Foundation
import JSON
import Runtime
import Schema
import Testing
import WireTime

/// The real `gateway`, `registration` and `analytics` executables over TCP, through the gateway's
/// `device` routing.
@Suite("analytics (integration)", .serialized)
struct AnalyticsIntegrationTests {
    /// Calls `command` with a payload written as JSON text.
    func call(_ client: MajordomoClient, _ command: String, _ payload: String) throws -> JSONValue {
        try client.json(command, object(payload))
    }

    func counts(_ reply: JSONValue) -> [Int] {
        guard case .array(let buckets)? = reply["buckets"] else { return [] }
        return buckets.compactMap { $0["count"]?.number.map { Int($0) } }
    }

    /// The app's `name` count over the hours around now.
    func recentCount(_ client: MajordomoClient, _ name: String, app: String = "app1") throws -> Int {
        let from = RFC3339.string(from: Date().addingTimeInterval(-3600))
        let to = RFC3339.string(from: Date().addingTimeInterval(3600))
        let reply = try call(client, "stats.events", #"{"app_key":"\#(app)","from":"\#(from)","to":"\#(to)","bucket":"hour","name":"\#(name)"}"#)
        return counts(reply).reduce(0, +)
    }

    @Test func everyAnalyticsCommandThroughTheGateway() throws {
        let stack = try TestStack().start(["registration", "analytics"])
        let client = try stack.client()

        let started = try call(client, "ma.start", #"{"app_key":"app1","device_id":"iphone-1","seq":7}"#)
        #expect(started.code == 0)
        #expect(started["seq"] == .number(7))
        let euid = try #require(started["euid"]?.string)
        #expect(try call(client, "ma.start", #"{"app_key":"app1","device_id":"iphone-1"}"#)["euid"] == euid.json)
        func ma(_ command: String, _ fields: String) throws -> JSONValue {
            try call(client, command, #"{"app_key":"app1","euid":"\#(euid)",\#(fields)}"#)
        }

        let identified = try ma("ma.identify", #""user_id":"member_10001","email":"Member_10001@Example.com","phone":"+86138000000001234567""#)
        #expect(identified["euid"] == euid.json)
        #expect(identified["message"]?.string ==
                #"{"email":{"code":0},"phone":{"code":3003,"msg":"User identifier value exceeds the length limit"},"user_id":{"code":0}}"#)
        #expect(try ma("ma.identify", #""user_id":"undefined""#).code == -3)
        #expect(try ma("ma.contact", #""contacts":{"mobile_phone":"13800000000","email":"   "}"#).code == 6017)
        #expect(try ma("ma.contact", #""contacts":{"mobile_phone":"13800000000"}"#).code == 0)

        #expect(try ma("ma.property", #""op":"set","properties":{"level":"gold","profile":{"city":"Singapore","score":100},"addresses":[{"id":"home","city":"Singapore"},{"id":"office","city":"Tokyo"}]}"#).code == 0)
        #expect(try ma("ma.property", #""op":"set","key":"profile","value":{"score":200}"#).code == 0)
        #expect(try ma("ma.property", #""op":"update_object_array","key":"addresses","identifier_key":"id","identifier_value":"home","values":{"city":"Tokyo","zip":null}"#).code == 0)
        #expect(try ma("ma.property", #""op":"add_object_array","key":"addresses","object":{"id":"school","city":"Osaka"}"#).code == 0)
        #expect(try ma("ma.property", #""op":"remove_object_array","key":"addresses","identifier_key":"id","identifier_value":"office""#).code == 0)
        #expect(try ma("ma.property", #""op":"increase","key":"spent","amount":2.5"#).code == 0)
        #expect(try ma("ma.property", #""op":"add","key":"likes","values":["tea","jazz"]"#).code == 0)
        #expect(try ma("ma.property", #""op":"remove","key":"likes","values":["tea"]"#).code == 0)
        #expect(try ma("ma.property", #""op":"delete","key":"level""#).code == 0)
        #expect(try ma("ma.property", #""op":"set","key":"Level","value":1"#).code == 6017)
        #expect(try ma("ma.channel_value", #""channel_id":136,"values":[" rid-136 "]"#).code == 0)
        #expect(try ma("ma.channel_value", #""channel_id":0,"values":["x"]"#).code == 6017)

        let events = try ma("ma.events", """
            "events":[{"name":"purchase","properties":{"amount":9.99},"time":"2025-03-01T10:00:00Z"},
                      {"name":"purchase","time":"2025-03-01T10:20:00Z"},{"name":"browse","time":"2025-03-01T13:00:00Z"}],
            "utm":{"utm_source":"newsletter"}
            """)
        #expect(events == json(#"{"code":0,"accepted":3}"#))

        let profile = try ma("ma.profile", #""seq":9"#)
        #expect(profile == json("""
            {"code":0,"seq":9,"euid":"\(euid)",
             "properties":{"profile":{"city":"Singapore","score":200},
                           "addresses":[{"id":"home","city":"Tokyo"},{"id":"school","city":"Osaka"}],
                           "spent":2.5,"likes":["jazz"]},
             "identities":{"user_id":"member_10001","email":"member_10001@example.com"},
             "contacts":{"mobile_phone":"13800000000"},
             "channels":{"136":["rid-136"]}}
            """))

        let registrationID = try client.register(deviceID: "iphone-1")
        for kind in ["received", "displayed", "opened"] {
            #expect(try call(client, "stats.report", #"{"app_key":"app1","registration_id":"\#(registrationID)","kind":"\#(kind)","msg_id":"18100"}"#).code == 0)
        }
        #expect(try call(client, "stats.report", #"{"app_key":"app1","registration_id":"\#(registrationID)","kind":"received","msg_id":"18100"}"#).code == 0)
        #expect(try call(client, "stats.report", #"{"app_key":"app1","registration_id":"\#(registrationID)","kind":"page_enter","page":"Home"}"#).code == 0)
        // A message report counts once push has said the device was a target of the message; no
        // push runs here, so they wait (PushStatsTargetsTests counts them with push running).
        let messages = try call(client, "stats.message", #"{"app_key":"app1","msg_ids":["18100"]}"#)
        #expect(messages["messages"]?["18100"] == json(#"{"received":0,"displayed":0,"opened":0,"inapp_show":0,"inapp_click":0,"voip_received":0,"sent":0,"failed":0}"#))

        let day = try call(client, "stats.events", #"{"app_key":"app1","from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z","bucket":"day"}"#)
        #expect(day == json(#"{"code":0,"buckets":[{"start":"2025-03-01T00:00:00Z","count":3}]}"#))
        let sessions = try call(client, "stats.events", #"{"app_key":"app1","from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z","bucket":"day","name":"$session"}"#)
        #expect(counts(sessions) == [2], "13:00 is more than 30 minutes after 10:20")
        #expect(try recentCount(client, "$opened") == 0)
        #expect(try recentCount(client, "$page_enter") == 1, "a page report counts at once")
        #expect(try call(client, "stats.events", #"{"app_key":"app1","from":"2025-03-02T00:00:00Z","to":"2025-03-01T00:00:00Z","bucket":"day"}"#).code == 6017)
    }

    @Test func analyticsCountsAndForgetsWhatTheBusCarries() throws {
        let stack = try TestStack().start(["registration", "analytics"])
        let client = try stack.client()
        // The SUB socket's subscription reaches the bus asynchronously: register until one is counted.
        var registered = 0
        let deadline = Date().addingTimeInterval(15)
        while try recentCount(client, "$device.registered") == 0 && Date() < deadline {
            _ = try client.register()
            registered += 1
            usleep(50_000)
        }
        #expect(try recentCount(client, "$device.registered") > 0, "device.registered reaches analytics")

        let id = try client.register()
        let report = #"{"app_key":"app1","registration_id":"\#(id)","kind":"received","msg_id":"m-1"}"#
        #expect(try call(client, "stats.report", report).code == 0)
        #expect(try client.json("device.delete", ["app_key": "app1".json, "registration_id": id.json]).code == 0)
        let forgotten = Date().addingTimeInterval(10)
        while try call(client, "stats.report", report).code == 0 && Date() < forgotten { usleep(20_000) }
        let refused = try call(client, "stats.report", report)
        #expect(refused.code == 1008 && refused["message"]?.string == "device deleted", "the deleted device's proofs are refused")
        #expect(try recentCount(client, "$device.deleted") == 1)
        #expect(try recentCount(client, "$device.registered") == registered + 1, "once subscribed, every registration counts")
    }

    @Test func acknowledgedWritesSurviveAKilledService() throws {
        let stack = try TestStack().start(["registration", "analytics"])
        let client = try stack.client()
        let euid = try #require(try call(client, "ma.start", #"{"app_key":"app1","device_id":"durable"}"#)["euid"]?.string)
        #expect(try call(client, "ma.property", #"{"app_key":"app1","euid":"\#(euid)","op":"set","key":"level","value":"gold"}"#).code == 0)
        #expect(try call(client, "ma.events", #"{"app_key":"app1","euid":"\#(euid)","events":[{"name":"open","time":"2025-03-01T10:00:00Z"}]}"#)["accepted"] == .number(1))

        stack.services["analytics"]?.kill()
        try stack.waitForServiceGone("analytics")
        try stack.startService("analytics")

        #expect(try call(client, "ma.start", #"{"app_key":"app1","device_id":"durable"}"#)["euid"] == euid.json)
        #expect(try call(client, "ma.profile", #"{"app_key":"app1","euid":"\#(euid)"}"#)["properties"] == json(#"{"level":"gold"}"#))
        let day = try call(client, "stats.events", #"{"app_key":"app1","from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z","bucket":"day","name":"open"}"#)
        #expect(counts(day) == [1])
    }

    @Test func aDeviceReachesOnlyItsOwnMAUserAndTheAppReachesEveryOne() throws {
        let stack = try TestStack().start(["registration", "analytics"])
        let client = try stack.client()   // signs as the device whose registration_id a payload names, else as the app
        let a = try client.register(deviceID: "phone-a")
        let b = try client.register(deviceID: "phone-b")
        func signed(by device: String, _ command: String, _ fields: String) throws -> JSONValue {
            try call(client, command, #"{"app_key":"app1","registration_id":"\#(device)",\#(fields)}"#)
        }

        let alice = try #require(try signed(by: a, "ma.start", #""device_id":"phone-a""#)["euid"]?.string)
        #expect(try signed(by: a, "ma.identify", #""euid":"\#(alice)","user_id":"alice","email":"alice@example.com""#)["euid"] == alice.json)
        #expect(try signed(by: a, "ma.contact", #""euid":"\#(alice)","contacts":{"mobile_phone":"+6580000000"}"#).code == 0)
        #expect(try signed(by: a, "ma.property", #""euid":"\#(alice)","op":"set","key":"level","value":"gold""#).code == 0)
        let aliceProfile = try signed(by: a, "ma.profile", #""euid":"\#(alice)""#)
        #expect(aliceProfile["contacts"] == json(#"{"mobile_phone":"+6580000000"}"#))

        // B claims A's install and A's user: it gets its own EUID.
        let claimedInstall = try #require(try signed(by: b, "ma.start", #""device_id":"phone-a""#)["euid"]?.string)
        #expect(claimedInstall != alice)
        let claimedUser = try signed(by: b, "ma.start", #""device_id":"phone-b","user":{"user_id":"alice","email":"alice@example.com"}"#)
        #expect(claimedUser["euid"] == claimedInstall.json)
        let identified = try signed(by: b, "ma.identify", #""euid":"\#(claimedInstall)","user_id":"alice""#)
        #expect(identified["euid"] == claimedInstall.json)
        #expect(identified["message"]?.string == #"{"user_id":{"code":-1,"msg":"User identifier belongs to another user"}}"#)

        // B naming A's EUID: refused, nothing read or changed.
        for (command, fields) in [("ma.profile", ""), ("ma.property", #","op":"set","key":"level","value":"stolen""#),
                                  ("ma.identify", #","email":"mallory@example.com""#),
                                  ("ma.contact", #","contacts":{"mobile_phone":"+6599999999"}"#),
                                  ("ma.events", #","events":[{"name":"fake"}]"#)] {
            let refused = try signed(by: b, command, #""euid":"\#(alice)""# + fields)
            #expect(refused.code == 1008, "\(command): \(refused)")
            #expect(refused["properties"] == nil && refused["contacts"] == nil)
        }
        #expect(try signed(by: a, "ma.profile", #""euid":"\#(alice)""#) == aliceProfile, "A still reads its own, unchanged")
        #expect(try call(client, "ma.profile", #"{"app_key":"app1","euid":"\#(alice)"}"#) == aliceProfile, "the app reads any user")
        #expect(try call(client, "ma.start", #"{"app_key":"app1","device_id":"phone-a"}"#)["euid"] == alice.json,
                "the install stayed with A")
        #expect(try signed(by: a, "ma.start", #""device_id":"phone-a""#)["euid"] == alice.json)
    }

    @Test func theAppErasesOneUserAndADeviceCannot() throws {
        let stack = try TestStack().start(["registration", "analytics"])
        let client = try stack.client()
        let a = try client.register(deviceID: "phone-a")
        var euids: [String] = []
        for (device, name) in [(a, "alice"), (try client.register(deviceID: "phone-b"), "bob")] {
            let euid = try #require(try call(client, "ma.start", #"{"app_key":"app1","registration_id":"\#(device)","device_id":"\#(name)-phone"}"#)["euid"]?.string)
            #expect(try call(client, "ma.identify", #"{"app_key":"app1","euid":"\#(euid)","user_id":"\#(name)","phone":"+658000000\#(euids.count)"}"#).code == 0)
            #expect(try call(client, "ma.contact", #"{"app_key":"app1","euid":"\#(euid)","contacts":{"email":"\#(name)@example.com"}}"#).code == 0)
            #expect(try call(client, "ma.events", #"{"app_key":"app1","euid":"\#(euid)","events":[{"name":"open"}]}"#)["accepted"] == .number(1))
            euids.append(euid)
        }
        let (alice, bob) = (euids[0], euids[1])
        let bobBefore = try call(client, "ma.profile", #"{"app_key":"app1","euid":"\#(bob)"}"#)

        let byDevice = try call(client, "ma.erase", #"{"app_key":"app1","registration_id":"\#(a)","euid":"\#(alice)"}"#)
        #expect(byDevice.code == 1008, "\(byDevice)")
        #expect(try call(client, "ma.profile", #"{"app_key":"app1","euid":"\#(alice)"}"#)["contacts"] == json(#"{"email":"alice@example.com"}"#))

        let erased = try call(client, "ma.erase", #"{"app_key":"app1","euid":"\#(alice)","seq":3}"#)
        #expect(erased == json(#"{"code":0,"seq":3,"euids":1,"identities":2,"contacts":1,"properties":0,"channel_values":0,"events":1,"sessions":1,"installs":1,"devices":1}"#))
        #expect(try call(client, "ma.profile", #"{"app_key":"app1","euid":"\#(alice)"}"#).code == -2)
        #expect(try call(client, "ma.profile", #"{"app_key":"app1","euid":"\#(bob)"}"#) == bobBefore, "other users untouched")
        let again = try #require(try call(client, "ma.start", #"{"app_key":"app1","registration_id":"\#(a)","device_id":"alice-phone"}"#)["euid"]?.string)
        #expect(again != alice, "the device starts afresh")
    }

    @Test func theSessionTimeoutIsSetPerAppByFlag() throws {
        let stack = try TestStack()
        try stack.startGateway()
        try stack.startService("analytics", extra: ["--app-session-timeouts", "app1=60"])
        let client = try stack.client()
        for app in ["app1", "app2"] {
            let euid = try #require(try call(client, "ma.start", #"{"app_key":"\#(app)","device_id":"d"}"#)["euid"]?.string)
            let events = #"[{"name":"a","time":"2025-03-01T10:00:00Z"},{"name":"b","time":"2025-03-01T10:05:00Z"}]"#
            #expect(try call(client, "ma.events", #"{"app_key":"\#(app)","euid":"\#(euid)","events":\#(events)}"#)["accepted"] == .number(2))
        }
        func sessions(_ app: String) throws -> [Int] {
            counts(try call(client, "stats.events", #"{"app_key":"\#(app)","from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z","bucket":"day","name":"$session"}"#))
        }
        #expect(try sessions("app1") == [2], "app1 splits after 60 s")
        #expect(try sessions("app2") == [1], "app2 keeps 30 minutes")
    }
}
