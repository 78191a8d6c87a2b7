import Foundation
import JSON
import Schema
import Testing
@testable import BadgeKit

/// `badge.set`, `badge.reset`, `badge.get` and the devices the service learns and forgets.
@Suite("badge handler")
struct BadgeHandlerTests {
    let badge: BadgeHarness

    init() throws { badge = try BadgeHarness() }

    @Test func aDeviceNeverSetReadsZero() throws {
        try badge.registered(["known0001"])
        #expect(badge.get("known0001") == .object(["code": .number(0), "value": .number(0)]))
        #expect(badge.value("neverheard1") == 0, "a device not heard of yet reads 0 too")
    }

    @Test func setKeepsTheValueAtBothEdgesOfTheRange() throws {
        try badge.registered(["dev1"])
        #expect(badge.set("dev1", .number(99_999))["value"] == .number(99_999))
        #expect(badge.value("dev1") == 99_999)
        #expect(badge.set("dev1", .number(0))["value"] == .number(0))
        #expect(badge.value("dev1") == 0)
        #expect(badge.set("dev1", .number(17)).code == 0)
        #expect(badge.value("dev1") == 17)
    }

    @Test(arguments: [JSONValue.number(-1), .number(100_000), .number(-99_999), .number(1e9), .number(1.5), "3".json, .bool(true)])
    func setOutsideTheRangeIsRefusedAndStoresNothing(_ value: JSONValue) throws {
        try badge.registered(["dev1"])
        #expect(badge.set("dev1", .number(5)).code == 0)
        _ = try badge.changes()
        #expect(badge.set("dev1", value).code == 6017)
        #expect(badge.value("dev1") == 5)
        #expect(badge.set("fresh1", value).code == 6017)
        #expect(try badge.count("devices") == 1, "a refused set does not learn the device either")
        #expect(try badge.changes().isEmpty)
    }

    @Test func setChecksItsFields() {
        #expect(badge.call("badge.set", ["registration_id": "dev1".json, "value": .number(1)]).code == 1005)
        #expect(badge.call("badge.set", ["app_key": "bad key".json, "registration_id": "dev1".json, "value": .number(1)]).code == 1008)
        #expect(badge.call("badge.set", ["app_key": "app1".json, "value": .number(1)]).code == 6001)
        #expect(badge.call("badge.set", ["app_key": "app1".json, "registration_id": "not valid!".json, "value": .number(1)]).code == 6017)
        #expect(badge.call("badge.set", ["app_key": "app1".json, "registration_id": "dev1".json]).code == 6001)
        #expect(badge.set("dev1", .null).code == 6001)
        #expect(badge.call("badge.get", ["app_key": "app1".json]).code == 6001)
        #expect(badge.call("badge.reset", ["registration_id": "dev1".json]).code == 1005)
        #expect(badge.call("badge.tags", [:]).code == 6017)
        #expect(badge.call("tags.add", ["app_key": "app1".json, "registration_id": "dev1".json]).code == 6017)
    }

    @Test func resetIsSetZero() throws {
        try badge.registered(["dev1"])
        #expect(badge.set("dev1", .number(12)).code == 0)
        #expect(badge.call("badge.reset", ["app_key": "app1".json, "registration_id": "dev1".json])
            == .object(["code": .number(0), "value": .number(0)]))
        #expect(badge.value("dev1") == 0)
    }

    @Test func aDeviceSettingItsBadgeBeforeItsRegistrationArrivesIsAcceptedAndLearned() throws {
        #expect(badge.set("early1", .number(3)).code == 0, "the SDK sets its badge right after registering")
        #expect(badge.value("early1") == 3)
        #expect(badge.apply(["early1"], "+1", msgID: "m1").badge("early1") == 4, "pushes reach it from then on")
        try badge.registered(["early1"])
        #expect(badge.value("early1") == 4, "the late device.registered keeps its badge")
    }

    @Test func anotherAppsDeviceIsRefused1008() throws {
        try badge.registered(["dev1"], app: "app2")
        #expect(badge.set("dev1", .number(1)).code == 1008)
        #expect(badge.get("dev1").code == 1008)
        #expect(badge.call("badge.reset", ["app_key": "app1".json, "registration_id": "dev1".json]).code == 1008)
        #expect(badge.value("dev1", app: "app2") == 0)
    }

    @Test func registrationDecidesWhichAppADeviceBelongsTo() throws {
        #expect(badge.set("dev1", .number(2), app: "guess").code == 0)
        try badge.registered(["dev1"], app: "app1")
        #expect(badge.value("dev1") == 2)
        #expect(badge.get("dev1", app: "guess").code == 1008)
    }

    @Test func aDeletedDeviceIsForgotten() throws {
        try badge.registered(["dev1", "dev2"])
        #expect(badge.set("dev1", .number(9)).code == 0)
        #expect(badge.apply(["dev1", "dev2"], "+1", msgID: "m1").code == 0)
        try badge.deleted("dev1")
        #expect(try badge.count("devices") == 1)
        #expect(try badge.count("applied") == 1, "its push records go with it")
        #expect(badge.get("dev1").code == 6017)
        #expect(badge.set("dev1", .number(1)).code == 6017, "a late setBadge cannot bring it back")
        #expect(badge.apply(["dev1", "dev2"], "+1", msgID: "m2").strings("unknown") == ["dev1"])
        #expect(badge.value("dev2") == 2)
    }

    @Test func changesArePublishedOnlyWhenTheValueChanges() throws {
        try badge.registered(["dev1"])
        #expect(badge.set("dev1", .number(4)).code == 0)
        #expect(badge.set("dev1", .number(4)).code == 0)
        #expect(badge.call("badge.reset", ["app_key": "app1".json, "registration_id": "dev1".json]).code == 0)
        #expect(badge.call("badge.reset", ["app_key": "app1".json, "registration_id": "dev1".json]).code == 0)
        #expect(badge.set("new1", .number(0)).code == 0)
        #expect(badge.set("new2", .number(8)).code == 0)
        #expect(try badge.changes().map { "\($0.0)=\($0.1)" } == ["dev1=4", "dev1=0", "new2=8"])

        #expect(badge.set("dev1", .number(1)).code == 0)
        let taken = badge.handler.storage.outbox.takeCommitted()
        #expect(taken.map(\.topic) == ["badge.changed"])
        let event = try JSONDecoder().decode(Event<BadgeChangedEvent>.self, from: try #require(taken.first).event)
        #expect(event.body == BadgeChangedEvent(appKey: "app1", registrationID: "dev1", value: 1))
        #expect(event.publisher == "badge")
    }

    @Test func storedBadgesSurviveAReopen() throws {
        try badge.registered(["dev1"])
        #expect(badge.set("dev1", .number(321)).code == 0)
        try badge.reopen()
        #expect(badge.value("dev1") == 321)
    }
}
