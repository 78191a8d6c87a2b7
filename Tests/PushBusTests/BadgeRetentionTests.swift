import Credentials
import Foundation
import Schema
import Testing
import Worker
@testable import BadgeKit

/// How long `msg_id`s and deleted-device marks are kept.
@Suite("badge retention")
struct BadgeRetentionTests {
    let badge: BadgeHarness

    init() throws { badge = try BadgeHarness(retention: 3600) }

    func tick() throws {
        try badge.handler.storage.store.write { db in try badge.handler.tick(now: Date(timeIntervalSince1970: badge.clock.now), in: db) }
    }

    @Test func aPushIsRememberedForTheWindowAfterItsLastCall() throws {
        try badge.registered(["dev1"])
        #expect(badge.apply(["dev1"], "+1", msgID: "m1").code == 0)
        badge.clock.advance(3000)
        #expect(badge.apply(["dev1"], "+1", msgID: "m1").badge("dev1") == 1, "a retry renews the window")
        badge.clock.advance(3000)
        try tick()
        #expect(badge.apply(["dev1"], "+1", msgID: "m1").badge("dev1") == 1)
        badge.clock.advance(3601)
        try tick()
        #expect(try badge.count("messages") == 0)
        #expect(try badge.count("applied") == 0)
        #expect(badge.apply(["dev1"], "+1", msgID: "m1").badge("dev1") == 2, "past the window the msg_id is new again")
    }

    @Test func aLargeExpiredPushIsForgottenInChunks() throws {
        let ids = (0..<6000).map { String(format: "dev%05d", $0) }
        try badge.registered(ids)
        for start in stride(from: 0, to: ids.count, by: 1000) {
            #expect(badge.apply(Array(ids[start..<start + 1000]), "+1", msgID: "big").code == 0)
        }
        #expect(try badge.count("applied") == 6000)
        badge.clock.advance(3601)
        try tick()
        #expect(try badge.count("applied") == 1000)
        #expect(badge.handler.nextTick() == Date(timeIntervalSince1970: badge.clock.now), "more to do: again at once")
        try tick()
        #expect(try badge.count("applied") == 0)
        #expect(try badge.count("messages") == 0)
        #expect(badge.handler.nextTick() == Date(timeIntervalSince1970: badge.clock.now + 60))
    }

    @Test func aDeletedDeviceMarkLastsTheWindow() throws {
        try badge.registered(["dev1"])
        try badge.deleted("dev1")
        try tick()
        #expect(badge.set("dev1", .number(1)).code == 6017)
        badge.clock.advance(3601)
        try tick()
        #expect(try badge.count("forgotten") == 0)
        #expect(badge.get("dev1") == .object(["code": .number(0), "value": .number(0)]))
    }

    @Test func aDeletedDevicesTombstoneOutlastsTheWindow() throws {
        try badge.registered(["dev1"])
        #expect(badge.set("dev1", .number(5)).code == 0)
        try badge.handler.storage.store.write { db in try Tombstones.record(db, registrationID: "dev1") }   // as the worker's event subscription does
        try badge.deleted("dev1")
        badge.clock.advance(3601)
        try tick()
        #expect(try badge.count("forgotten") == 0, "the mark is gone, the tombstone stays")
        let set = reply(badge.handler, "badge.set", ["app_key": "app1".json, "registration_id": "dev1".json, "value": .number(1)],
                        principal: .app(appKey: "app1"))
        #expect(set.code == 1008 && set["message"] == "device deleted".json, "\(set)")
        #expect(badge.apply(["dev1"], "+1", msgID: "m1").strings("unknown") == ["dev1"])
        try badge.registered(["dev1"])
        #expect(try badge.count("devices") == 0, "nothing brought it back")
    }
}
