import Foundation
import Testing
import Schema

/// Every event body survives the codec inside an `Event`, and every topic has exactly one body type.
@Suite("Schema events")
struct SchemaEventTests {
    @Test("each topic has one body type")
    func topics() {
        let bodies: [Topic] = [
            DeviceRegisteredEvent.topic, DeviceDeletedEvent.topic, DeviceUpdatedEvent.topic, TagsChangedEvent.topic,
            AliasChangedEvent.topic,
            BadgeChangedEvent.topic, LocalFiredEvent.topic, PushDeliveredEvent.topic,
        ]
        #expect(bodies == Topic.allCases)
        #expect(Topic.allCases.map(\.rawValue) == [
            "device.registered", "device.deleted", "device.updated", "tags.changed", "alias.changed", "badge.changed", "local.fired", "push.delivered",
        ])
    }

    @Test("push.delivered carries a message's new sends and failures by reason")
    func pushDelivered() {
        SchemaFixture.expectEvent(PushDeliveredEvent(appKey: "a1", msgID: "1000000001", sent: 3, failed: ["Unregistered": 1]),
                                  keys: ["app_key", "msg_id", "sent", "failed"])
    }

    @Test("device.registered and device.deleted")
    func device() {
        SchemaFixture.expectEvent(DeviceRegisteredEvent(appKey: "a1", registrationID: "r1", platform: "ios"),
                                  keys: ["app_key", "registration_id", "platform"])
        SchemaFixture.expectEvent(DeviceDeletedEvent(appKey: "a1", registrationID: "r1"),
                                  keys: ["app_key", "registration_id"])
    }

    @Test("device.updated carries only the changed language or time zone")
    func deviceUpdated() {
        SchemaFixture.expectEvent(DeviceUpdatedEvent(appKey: "a1", registrationID: "r1", language: "th",
                                                     timezone: "Asia/Bangkok"),
                                  keys: ["app_key", "registration_id", "language", "timezone"])
        SchemaFixture.expectEvent(DeviceUpdatedEvent(appKey: "a1", registrationID: "r1", timezone: "Europe/Paris"),
                                  keys: ["app_key", "registration_id", "timezone"])
    }

    @Test("tags.changed carries what was added and removed")
    func tagsChanged() {
        SchemaFixture.expectEvent(TagsChangedEvent(appKey: "a1", registrationID: "r1", added: ["vip", "北京"],
                                                   removed: ["trial"]),
                                  keys: ["app_key", "registration_id", "added", "removed"])
        SchemaFixture.expectEvent(TagsChangedEvent(appKey: "a1", registrationID: "r1", added: [], removed: []),
                                  keys: ["app_key", "registration_id", "added", "removed"])
    }

    @Test("alias.changed carries the new and the previous alias")
    func aliasChanged() {
        SchemaFixture.expectEvent(AliasChangedEvent(appKey: "a1", registrationID: "r1", alias: "member_2",
                                                    previous: "member_1"),
                                  keys: ["app_key", "registration_id", "alias", "previous"])
        SchemaFixture.expectEvent(AliasChangedEvent(appKey: "a1", registrationID: "r1", alias: nil,
                                                    previous: "member_2"),
                                  keys: ["app_key", "registration_id", "previous"])
        SchemaFixture.expectEvent(AliasChangedEvent(appKey: "a1", registrationID: "r1", alias: "member_1",
                                                    previous: nil),
                                  keys: ["app_key", "registration_id", "alias"])
    }

    @Test("badge.changed carries the new value")
    func badgeChanged() {
        SchemaFixture.expectEvent(BadgeChangedEvent(appKey: "a1", registrationID: "r1", value: 99_999),
                                  keys: ["app_key", "registration_id", "value"])
    }

    @Test("local.fired carries the content and when it fired")
    func localFired() {
        SchemaFixture.expectEvent(
            LocalFiredEvent(appKey: "a1", registrationID: "r1", identifier: "weekly", content: SchemaFixture.content,
                            firedAt: SchemaFixture.time, nextFireAt: "2025-03-08T08:00:00Z"),
            keys: ["app_key", "registration_id", "identifier", "content", "fired_at", "next_fire_at"])
        SchemaFixture.expectEvent(
            LocalFiredEvent(appKey: "a1", registrationID: "r1", identifier: "once", content: LocalContent(body: "hi"),
                            firedAt: SchemaFixture.time),
            keys: ["app_key", "registration_id", "identifier", "content", "fired_at"])
    }
}
