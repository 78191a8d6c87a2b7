import Bus
import Credentials
import Foundation
import JSON
import Schema
import SQLite
import Testing
import Worker
@testable import AnalyticsKit

/// `stats.report`, `stats.message` and the bus events analytics follows, on a temporary database.
@Suite("analytics push statistics")
struct AnalyticsPushStatsTests {
    let ma: AnalyticsHarness

    init() throws { ma = try AnalyticsHarness() }

    func report(_ device: String, _ kind: String, _ extra: String = #","msg_id":"18100""#) -> JSONValue {
        ma.call("stats.report", "{\"app_key\":\"app1\",\"registration_id\":\"\(device)\",\"kind\":\"\(kind)\"\(extra)}")
    }

    func message(_ ids: String) -> JSONValue { ma.call("stats.message", "{\"app_key\":\"app1\",\"msg_ids\":\(ids)}") }

    func hourly(_ name: String, from: String = "2023-11-14T22:00:00Z", to: String = "2023-11-14T23:00:00Z") -> [Int] {
        let reply = ma.call("stats.events", "{\"app_key\":\"app1\",\"from\":\"\(from)\",\"to\":\"\(to)\",\"bucket\":\"hour\",\"name\":\"\(name)\"}")
        guard case .array(let buckets)? = reply["buckets"] else { return [] }
        return buckets.compactMap { $0["count"]?.number.map { Int($0) } }
    }

    /// Every count of a message, zero.
    static let zeros = json(#"{"received":0,"displayed":0,"opened":0,"inapp_show":0,"inapp_click":0,"voip_received":0,"sent":0,"failed":0}"#)

    @Test func everyMessageKindIsCountedOncePerTargetDevice() throws {
        for kind in ["received", "displayed", "opened", "inapp_show", "inapp_click", "voip_received"] {
            #expect(report("rid-1", kind).code == 0, "\(kind)")
        }
        #expect(report("rid-1", "received").code == 0, "a duplicate is accepted")
        #expect(report("rid-1", "opened").code == 0)
        #expect(report("rid-2", "received").code == 0)
        #expect(report("rid-2", "received", #","msg_id":"18101""#).code == 0)
        #expect(report("rid-3", "received").code == 0, "a device the message was not sent to is accepted")
        #expect(message(#"["18100"]"#)["messages"]?["18100"] == Self.zeros, "nothing counts before push has said who the targets were")
        #expect(hourly("$received") == [0])
        #expect(try ma.verify(["18100": ["rid-1", "rid-2"], "18101": ["rid-2"]]) == 8)
        #expect(message(#"["18100","18101","unknown"]"#) == json("""
            {"code":0,"messages":{
              "18100":{"received":2,"displayed":1,"opened":1,"inapp_show":1,"inapp_click":1,"voip_received":1,"sent":0,"failed":0},
              "18101":{"received":1,"displayed":0,"opened":0,"inapp_show":0,"inapp_click":0,"voip_received":0,"sent":0,"failed":0},
              "unknown":{"received":0,"displayed":0,"opened":0,"inapp_show":0,"inapp_click":0,"voip_received":0,"sent":0,"failed":0}}}
            """))
        #expect(hourly("$received") == [3], "stats.events counts each target's kind under $<kind>, duplicates once")
        #expect(try ma.verify(["18100": ["rid-1", "rid-2"], "18101": ["rid-2"]]) == 0, "a report is settled once")
        #expect(ma.call("stats.message", #"{"app_key":"app2","msg_ids":["18100"]}"#)["messages"]?["18100"]?["received"] == .number(0),
                "counts belong to one app")
    }

    @Test func pageReportsNeedAPageAndCountEveryVisit() {
        #expect(report("rid-1", "page_enter", #","page":"AViewController""#).code == 0)
        #expect(report("rid-1", "page_leave", #","page":"AViewController""#).code == 0)
        #expect(report("rid-1", "page_enter", #","page":"AViewController""#).code == 0)
        #expect(hourly("$page_enter") == [2])
        #expect(hourly("$page_leave") == [1])
        #expect(report("rid-1", "page_enter", "").code == 6001)
        #expect(report("rid-1", "page_enter", ",\"page\":\"\(String(repeating: "p", count: 257))\"").code == 6017)
    }

    @Test func reportsAreChecked() {
        #expect(report("rid-1", "received", "").code == 6001, "msg_id missing")
        #expect(report("rid-1", "received", #","msg_id":"""#).code == 6001)
        #expect(report("rid-1", "clicked").code == 6017, "an unknown kind")
        #expect(report("rid 1", "received").code == 6017)
        #expect(report("rid-1", "received", #","msg_id":"1","time":"later""#).code == 6017)
        #expect(ma.call("stats.report", #"{"app_key":"app1","registration_id":"r","msg_id":"1"}"#).code == 6001, "kind missing")
        #expect(ma.call("stats.report", #"{"app_key":"app1","kind":"received","msg_id":"1"}"#).code == 6001)
        #expect(ma.call("stats.report", #"{"registration_id":"r","kind":"received","msg_id":"1"}"#).code == 1005)
        #expect(message("[]").code == 6001)
        #expect(ma.call("stats.message", #"{"app_key":"app1"}"#).code == 6001)
        #expect(message(#"[""]"#).code == 6001)
        let tooMany = (0...1000).map { "\"m\($0)\"" }.joined(separator: ",")
        #expect(message("[\(tooMany)]").code == 6017)
    }

    @Test func aReportsTimeDecidesItsHour() throws {
        #expect(report("rid-1", "opened", #","msg_id":"1","time":"2025-03-01T10:59:59Z""#).code == 0)
        ma.clock.advance(7200)
        try ma.verify(["1": ["rid-1"]])
        #expect(hourly("$opened", from: "2025-03-01T10:00:00Z", to: "2025-03-01T12:00:00Z") == [1, 0])
        #expect(hourly("$opened") == [0])
    }

    @Test func appOwnEventCountsLeaveOutTheServicesCounters() {
        #expect(report("rid-1", "received").code == 0)
        let all = ma.call("stats.events", #"{"app_key":"app1","from":"2023-11-14T22:00:00Z","to":"2023-11-14T23:00:00Z","bucket":"hour"}"#)
        #expect(all["buckets"] == json(#"[{"start":"2023-11-14T22:00:00Z","count":0}]"#))
    }

    // MARK: only targets count

    @Test("30 devices that were not sent a message cannot make it look read: only its 2 targets count")
    func onlyTheMessagesTargetsCount() throws {
        let targets = ["rid-1", "rid-2"]
        let others = (0..<30).map { "other-\($0)" }
        for device in others + targets {
            #expect(report(device, "received").code == 0)
            #expect(report(device, "opened").code == 0)
        }
        #expect(try ma.verify(["18100": targets]) == 4)
        let counts = message(#"["18100"]"#)["messages"]?["18100"]
        #expect(counts?["received"] == .number(2) && counts?["opened"] == .number(2), "\(String(describing: counts))")
        for device in others { #expect(report(device, "opened").code == 0, "a refused device may report again") }
        #expect(try unverified().isEmpty, "and its report, refused once, is not asked about again")
        #expect(message(#"["18100"]"#)["messages"]?["18100"]?["opened"] == .number(2))
        #expect(hourly("$opened") == [2])
    }

    @Test func reportsOfAMessageThatIsNotTheAppsAreRefused() throws {
        #expect(report("rid-1", "received", #","msg_id":"999999""#).code == 0)
        #expect(try ma.verify([:]) == 0)
        #expect(try unverified().isEmpty)
        #expect(message(#"["999999"]"#)["messages"]?["999999"] == Self.zeros)
    }

    @Test func reportsWaitWhilePushDoesNotAnswer() throws {
        #expect(report("rid-1", "received").code == 0)
        #expect(report("rid-2", "received", #","msg_id":"18101""#).code == 0)
        let store = ma.handler.storage.store
        var check = TargetCheck(try unverified())
        var asked = 0
        let silence = check.ask { question in
            asked += 1
            guard question.msgID == "18100" else { throw CommandError(.timeout, "push did not answer") }
            return try AnalyticsHarness.push(["18100": ["rid-1"]], question)
        }
        #expect((silence as? CommandError)?.code == .timeout)
        #expect(asked == 2)
        #expect(try store.write { db in try ReportStore().settle(db, check.verdicts) } == 1, "what push answered is settled")
        #expect(try unverified().map(\.msgID) == ["18101"], "the rest waits for a later pass")
        #expect(try ma.verify(["18101": ["rid-2"]]) == 1)
        #expect(message(#"["18101"]"#)["messages"]?["18101"]?["received"] == .number(1))
    }

    @Test func aReportErasedOrItsIdTakenMeanwhileIsNotCounted() throws {
        #expect(report("rid-1", "received").code == 0)
        let taken = try unverified()
        let verdicts = [TargetCheck.Verdict(report: try #require(taken.first), isTarget: true)]
        try apply(busEvent(DeviceDeletedEvent(appKey: "app1", registrationID: "rid-1")))
        #expect(report("rid-2", "received").code == 0)
        #expect(try unverified().first?.id == taken.first?.id, "SQLite gave the deleted report's id to the new one")
        #expect(try ma.handler.storage.store.write { db in try ReportStore().settle(db, verdicts) } == 0)
        #expect(message(#"["18100"]"#)["messages"]?["18100"]?["received"] == .number(0))
        #expect(try unverified().map(\.registrationID) == ["rid-2"], "the new report still waits for its own verdict")
    }

    @Test func reportsCountedBeforeVerificationStayCountedAndAreNotAskedAbout() throws {
        let path = "\(ma.directory)/old.sqlite"
        try Store(path: path, migrations: ServiceStorage.migrations(Array(AnalyticsSchema.migrations.prefix(2)))).write { db in
            try db.run("INSERT INTO push_reports (app_key, registration_id, kind, msg_id, time) VALUES ('app1', 'rid-1', 'opened', '7', 0)")
            try db.run("INSERT INTO message_counts (app_key, msg_id, kind, count) VALUES ('app1', '7', 'opened', 1)")
        }
        let handler = try AnalyticsHandler(path: path)
        let pending = try handler.storage.store.read { db in try ReportStore().unverified(db, limit: 10) }
        #expect(pending.isEmpty)
        #expect(reply(handler, "stats.message", object(#"{"app_key":"app1","msg_ids":["7"]}"#))["messages"]?["7"]?["opened"] == .number(1))
    }

    func unverified() throws -> [ReportStore.Pending] {
        try ma.handler.storage.store.read { db in try ReportStore().unverified(db, limit: ReportVerifier.batch) }
    }

    // MARK: events from the bus

    func busEvent<Body: EventBody>(_ body: Body, time: String = "2025-03-01T10:15:00.123Z", seq: Int64 = 1) -> BusEvent {
        BusEvent(Event(publisher: "\(Body.topic.rawValue.prefix { $0 != "." })", sequence: seq, time: time, body: body))
    }

    func apply(_ event: BusEvent) throws {
        try ma.handler.storage.store.write { db in try ma.handler.apply(event, in: db) }
    }

    @Test func followsTheTopicsOfOtherServices() {
        #expect(Set(ma.handler.subscriptions) == [.deviceRegistered, .deviceDeleted, .tagsChanged, .aliasChanged, .badgeChanged, .localFired, .pushDelivered])
    }

    @Test func countsWhatOtherServicesPublish() throws {
        try apply(busEvent(DeviceRegisteredEvent(appKey: "app1", registrationID: "rid-1", platform: "ios")))
        try apply(busEvent(DeviceRegisteredEvent(appKey: "app1", registrationID: "rid-2", platform: "ios"), seq: 2))
        try apply(busEvent(TagsChangedEvent(appKey: "app1", registrationID: "rid-1", added: ["vip"], removed: [])))
        try apply(busEvent(AliasChangedEvent(appKey: "app1", registrationID: "rid-1", alias: "amy", previous: nil)))
        try apply(busEvent(BadgeChangedEvent(appKey: "app1", registrationID: "rid-1", value: 3)))
        try apply(busEvent(LocalFiredEvent(appKey: "app1", registrationID: "rid-1", identifier: "weekly",
                                           content: LocalContent(title: "Hi"), firedAt: "2025-03-01T10:15:00Z")))
        try apply(busEvent(DeviceDeletedEvent(appKey: "app1", registrationID: "rid-2"), time: "2025-03-01T11:00:00Z", seq: 3))
        let window = (from: "2025-03-01T10:00:00Z", to: "2025-03-01T12:00:00Z")
        #expect(hourly("$device.registered", from: window.from, to: window.to) == [2, 0])
        #expect(hourly("$device.deleted", from: window.from, to: window.to) == [0, 1])
        for topic in ["tags.changed", "alias.changed", "badge.changed", "local.fired"] {
            #expect(hourly("$" + topic, from: window.from, to: window.to) == [1, 0], "\(topic)")
        }
    }

    @Test func aDeletedDeviceIsForgotten() throws {
        #expect(report("rid-1", "received").code == 0)
        #expect(report("rid-1", "page_enter", #","page":"Home""#).code == 0)
        #expect(report("rid-2", "received").code == 0)
        try ma.verify(["18100": ["rid-1", "rid-2"]])
        try apply(busEvent(DeviceDeletedEvent(appKey: "app1", registrationID: "rid-1")))
        let kept = try ma.handler.storage.store.read { db in
            (try ReportStore().reportCount(db, registrationID: "rid-1"), try ReportStore().reportCount(db, registrationID: "rid-2"))
        }
        #expect(kept.0 == 0, "nothing about the deleted device is kept")
        #expect(kept.1 == 1)
        #expect(report("rid-1", "opened").code == 6017, "a late report cannot bring it back")
        #expect(message(#"["18100"]"#)["messages"]?["18100"]?["received"] == .number(2),
                "the per-message counts, which name no device, stay")
    }

    @Test func aDeletedDeviceIsRefusedForGoodAndLosesItsBindings() throws {
        let euid = reply(ma.handler, "ma.start", ["app_key": "app1".json, "registration_id": "rid-1".json, "device_id": "phone".json],
                         principal: .device(registrationID: "rid-1"))["euid"]?.string ?? ""
        #expect(euid.count == 24)
        try ma.handler.storage.store.write { db in
            try Tombstones.record(db, registrationID: "rid-1")   // as the worker's event subscription does
            try ma.handler.apply(busEvent(DeviceDeletedEvent(appKey: "app1", registrationID: "rid-1")), in: db)
        }
        let bindings = try ma.handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM device_euids WHERE registration_id = 'rid-1'").int }
        #expect(bindings == 0)
        #expect(ma.profile(euid).code == 0, "the MA user stays (ma.erase removes it)")
        try ma.handler.storage.store.write { db in try db.run("DELETE FROM forgotten_devices") }   // a tombstone alone
        let refused = report("rid-1", "opened")
        #expect(refused.code == 1008 && refused["message"] == "device deleted".json, "\(refused)")
    }

    @Test func aMalformedBusEventIsRefused() {
        #expect(throws: (any Error).self) {
            try apply(BusEvent(topic: "device.deleted", data: Data(#"{"publisher":"x"}"#.utf8)))
        }
    }
}
