import Foundation
import JSON
import Schema
import Testing
import ZeroMQ
@testable import BadgeKit
@testable import Runtime
@testable import Worker

/// `badge.apply`: a push's badge for many devices, once per `msg_id`.
@Suite("badge apply")
struct BadgeApplyTests {
    let badge: BadgeHarness

    init() throws { badge = try BadgeHarness() }

    @Test func setsRaisesAndLowers() throws {
        try badge.registered(["dev1", "dev2"])
        #expect(badge.apply(["dev1", "dev2"], "5", msgID: "m1")["values"] == .object(["dev1": .number(5), "dev2": .number(5)]))
        #expect(badge.apply(["dev1"], "+3", msgID: "m2").badge("dev1") == 8)
        #expect(badge.apply(["dev1", "dev2"], "-2", msgID: "m3")["values"] == .object(["dev1": .number(6), "dev2": .number(3)]))
        #expect(badge.value("dev1") == 6)
        #expect(badge.value("dev2") == 3)
    }

    @Test func resultsAreClampedAtBothEnds() throws {
        try badge.registered(["top", "bottom", "near"])
        #expect(badge.set("top", .number(99_999)).code == 0)
        #expect(badge.set("near", .number(99_950)).code == 0)
        let up = badge.apply(["top", "near"], "+99", msgID: "up")
        #expect(up.badge("top") == 99_999)
        #expect(up.badge("near") == 99_999)
        #expect(badge.apply(["bottom"], "-1", msgID: "down").badge("bottom") == 0)
        #expect(badge.value("bottom") == 0)
        #expect(badge.value("top") == 99_999)
    }

    @Test func theSamePushAppliedTwiceChangesOnce() throws {
        try badge.registered(["dev1", "dev2"])
        let first = badge.apply(["dev1", "dev2"], "+1", msgID: "push-42")
        let retry = badge.apply(["dev1", "dev2"], "+1", msgID: "push-42")
        #expect(first.badge("dev1") == 1)
        #expect(retry == first, "a retry gets the same answer")
        #expect(badge.value("dev1") == 1)
        #expect(badge.apply(["dev1"], "+1", msgID: "push-43").badge("dev1") == 2, "another push counts")
        #expect(badge.set("dev2", .number(50)).code == 0)
        #expect(badge.apply(["dev2"], "+1", msgID: "push-42").badge("dev2") == 1,
                "a retry answers the value its first application gave")
        #expect(badge.value("dev2") == 50)
        #expect(badge.apply(["dev1"], "+01", msgID: "push-42").badge("dev1") == 1, "the same badge spelt otherwise")
    }

    @Test func aPartlyAppliedPushReachesOnlyTheRest() throws {
        try badge.registered(["a1", "b1", "c1"])
        #expect(badge.apply(["a1", "b1"], "+1", msgID: "m1").code == 0)
        let resumed = badge.apply(["a1", "b1", "c1"], "+1", msgID: "m1")
        #expect(resumed["values"] == .object(["a1": .number(1), "b1": .number(1), "c1": .number(1)]))
        #expect([badge.value("a1"), badge.value("b1"), badge.value("c1")] == [1, 1, 1])
    }

    @Test func aMsgIDReusedWithAnotherBadgeIsRefusedAndChangesNothing() throws {
        try badge.registered(["dev1", "dev2"])
        #expect(badge.apply(["dev1"], "+1", msgID: "m1").code == 0)
        #expect(badge.apply(["dev2"], "+2", msgID: "m1").code == 6017)
        #expect(badge.apply(["dev2"], "1", msgID: "m1").code == 6017)
        #expect(badge.value("dev2") == 0)
    }

    @Test func msgIDsBelongToTheirApp() throws {
        try badge.registered(["dev1"], app: "app1")
        try badge.registered(["dev2"], app: "app2")
        #expect(badge.apply(["dev1"], "+1", msgID: "m1", app: "app1").badge("dev1") == 1)
        #expect(badge.apply(["dev2"], "+5", msgID: "m1", app: "app2").badge("dev2") == 5)
    }

    @Test func unknownDevicesAreReportedNotFatal() throws {
        try badge.registered(["known1", "gone1"])
        try badge.registered(["other1"], app: "app2")
        try badge.deleted("gone1")
        let reply = badge.apply(["never1", "known1", "other1", "gone1", "known1"], "+1", msgID: "m1")
        #expect(reply.code == 0)
        #expect(reply["values"] == .object(["known1": .number(1)]), "a repeated ID is changed once")
        #expect(reply.strings("unknown") == ["never1", "other1", "gone1"])
        #expect(badge.value("other1", app: "app2") == 0, "another app's device is left alone")
        #expect(badge.apply(["known1"], "+1", msgID: "m2").strings("unknown") == [], "unknown is always present")
    }

    @Test func checksItsFields() throws {
        let ids: JSONValue = .array(["dev1".json])
        func apply(_ payload: [String: JSONValue]) -> Int? {
            badge.call("badge.apply", ["app_key": "app1".json, "registration_ids": ids, "badge": "+1".json, "msg_id": "m".json]
                .merging(payload) { $1 }.filter { $0.value != .null }).code
        }
        #expect(apply([:]) == 0)
        #expect(apply(["app_key": .null]) == 1005)
        #expect(apply(["app_key": "no spaces".json]) == 1008)
        #expect(apply(["registration_ids": .null]) == 6001)
        #expect(apply(["registration_ids": .array([])]) == 6001)
        #expect(apply(["registration_ids": .array(["ok1".json, "not valid!".json])]) == 6017)
        #expect(apply(["registration_ids": .array(["ok1".json, "".json])]) == 6001)
        #expect(apply(["registration_ids": "dev1".json]) == 6017)
        #expect(apply(["badge": .null]) == 6001)
        #expect(apply(["badge": "".json]) == 6001)
        #expect(apply(["badge": "+100".json]) == 6017)
        #expect(apply(["badge": .number(1)]) == 6017)
        #expect(apply(["msg_id": .null]) == 6001)
        #expect(apply(["msg_id": String(repeating: "m", count: 129).json]) == 6017)
        #expect(badge.apply(["ok1", "not valid!"], "+1", msgID: "x")["message"]?.string?.hasPrefix("registration_ids[1]") == true)
    }

    @Test func atMostAThousandDevicesPerCall() throws {
        let ids = (0..<1001).map { String(format: "dev%04d", $0) }
        try badge.registered(ids)
        let full = badge.apply(Array(ids.prefix(1000)), "+1", msgID: "m1")
        #expect(full.code == 0)
        #expect(full["values"].map { if case .object(let values) = $0 { values.count } else { 0 } } == 1000)
        #expect(badge.apply(ids, "+1", msgID: "m2").code == 6017)
        #expect(badge.value("dev0000") == 1)
    }

    @Test func eachChangedDeviceIsPublishedOnceAndRetriesPublishNothing() throws {
        try badge.registered(["dev1", "dev2", "top"])
        #expect(badge.set("top", .number(99_999)).code == 0)
        _ = try badge.changes()
        #expect(badge.apply(["dev1", "dev2", "top"], "+1", msgID: "m1").code == 0)
        #expect(try badge.changes().map { "\($0.0)=\($0.1)" } == ["dev1=1", "dev2=1"], "a clamped badge did not change")
        #expect(badge.apply(["dev1", "dev2", "top"], "+1", msgID: "m1").code == 0)
        #expect(try badge.changes().isEmpty)
    }

    @Test func appliedPushesAreRememberedAcrossARestart() throws {
        try badge.registered(["dev1"])
        #expect(badge.apply(["dev1"], "+1", msgID: "m1").code == 0)
        try badge.reopen()
        #expect(badge.apply(["dev1"], "+1", msgID: "m1").badge("dev1") == 1)
        #expect(badge.value("dev1") == 1)
    }

    @Test func aBatchOfAppliesToTheSameDevicesCountsEveryOne() throws {
        try badge.registered(["dev1", "dev2"])
        let worker = ServiceWorker(service: "badge", options: WorkerOptions(), handler: badge.handler,
                                   context: try Context(), logger: Logger(label: "test", level: .critical))
        let bodies = (1...20).map { n in
            [Data("badge.apply".utf8),
             WireCodec.encode(BadgeApply(appKey: "app1", registrationIDs: ["dev1", "dev2"], badge: "+1", msgID: "m\(n % 10)"))]
        } + [[Data("badge.apply".utf8), Data(#"{"app_key":"app1","registration_ids":["dev1"],"badge":"+1000","msg_id":"x"}"#.utf8)]]
        let codes = worker.answer(bodies).map { try? JSONDecoder().decode(JSONValue.self, from: $0).code }
        #expect(codes == Array(repeating: 0, count: 20) + [6017])
        #expect(badge.value("dev1") == 10, "ten distinct pushes, each sent twice, in one commit")
        #expect(badge.value("dev2") == 10)
    }
}
