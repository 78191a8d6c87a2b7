import Foundation
import Testing
import Schema

/// Every command of reference/commands.md: a full sample payload and reply survive the codec, alone,
/// in an `Envelope` and in a `Reply`, and encode exactly the catalog's snake_case keys.
@Suite("Command catalog round trips")
struct SchemaCatalogTests {
    static let app = "app_7f3a"
    static let rid = "1a0018970a8b2c3d"
    static let euid = "eu_0001"
    static let device: Set<String> = ["app_key", "registration_id"]

    @Test("payload and reply of", arguments: Command.allCases)
    func payloadAndReply(_ command: Command) {
        switch command {
        // registration
        case .appCreate:
            SchemaFixture.expectPayload(AppCreate(name: "Acme"), keys: ["name"])
            SchemaFixture.expectReply(AppCreated(appKey: Self.app, masterSecret: "5e11"),
                                      keys: ["app_key", "master_secret"])
        case .deviceRegister:
            SchemaFixture.expectPayload(
                DeviceRegister(appKey: Self.app, platform: "ios", deviceID: "idfv-1", apnsToken: "abcd01",
                               apnsProduction: true, sdkVersion: "5.2.0"),
                keys: ["app_key", "platform", "device_id", "apns_token", "apns_production", "sdk_version"])
            SchemaFixture.expectReply(DeviceRegistered(registrationID: Self.rid, isNew: true),
                                      keys: ["registration_id", "is_new"])
        case .deviceGet:
            SchemaFixture.expectPayload(DeviceRef(appKey: Self.app, registrationID: Self.rid), keys: Self.device)
            SchemaFixture.expectReply(DeviceInfo(device: SchemaFixture.device), keys: ["device"])
        case .deviceUpdate:
            SchemaFixture.expectPayload(
                DeviceUpdate(appKey: Self.app, registrationID: Self.rid, apnsToken: "abcd01", voipToken: .value("ef02"),
                             language: "zh_Hans", timezone: "Asia/Shanghai"),
                keys: Self.device.union(["apns_token", "voip_token", "language", "timezone"]))
            SchemaFixture.expectReply(Empty(), keys: [])
        case .deviceMobile:
            SchemaFixture.expectPayload(DeviceMobile(appKey: Self.app, registrationID: Self.rid, mobile: "+8613800000000"),
                                        keys: Self.device.union(["mobile"]))
            SchemaFixture.expectReply(Empty(), keys: [])
        case .liveActivityStartToken:
            SchemaFixture.expectPayload(
                LiveActivityStartToken(appKey: Self.app, registrationID: Self.rid, activityAttributes: "DeliveryAttributes",
                                       token: .value("aa11")),
                keys: Self.device.union(["activity_attributes", "token"]))
            SchemaFixture.expectReply(LiveActivityStartTokenSaved(activityAttributes: "DeliveryAttributes"),
                                      keys: ["activity_attributes"])
        case .liveActivityToken:
            SchemaFixture.expectPayload(
                LiveActivityToken(appKey: Self.app, registrationID: Self.rid, liveActivityID: "order-1", token: .null),
                keys: Self.device.union(["live_activity_id", "token"]))
            SchemaFixture.expectReply(LiveActivityTokenSaved(liveActivityID: "order-1"), keys: ["live_activity_id"])
        case .deviceDelete:
            SchemaFixture.expectPayload(DeviceRef(appKey: Self.app, registrationID: Self.rid), keys: Self.device)
            SchemaFixture.expectReply(Empty(), keys: [])

        // tagging
        case .tagsAdd, .tagsSet, .tagsDelete:
            SchemaFixture.expectPayload(TagsChange(appKey: Self.app, registrationID: Self.rid, tags: ["vip", "北京", "a@b"]),
                                        keys: Self.device.union(["tags"]))
            SchemaFixture.expectReply(TagsReply(tags: ["vip", "北京", "a@b"]), keys: ["tags"])
        case .tagsClean:
            SchemaFixture.expectPayload(DeviceRef(appKey: Self.app, registrationID: Self.rid), keys: Self.device)
            SchemaFixture.expectReply(TagsReply(tags: nil), keys: ["tags"])
        case .tagsGet:
            SchemaFixture.expectPayload(DeviceRef(appKey: Self.app, registrationID: Self.rid), keys: Self.device)
            SchemaFixture.expectReply(TagsReply(tags: []), keys: ["tags"])
        case .tagsValid:
            SchemaFixture.expectPayload(TagCheck(appKey: Self.app, registrationID: Self.rid, tag: "vip"),
                                        keys: Self.device.union(["tag"]))
            SchemaFixture.expectReply(TagBinding(tag: "vip", isBind: true), keys: ["tag", "is_bind"])
        case .aliasSet:
            SchemaFixture.expectPayload(AliasSet(appKey: Self.app, registrationID: Self.rid, alias: "member_10001"),
                                        keys: Self.device.union(["alias"]))
            SchemaFixture.expectReply(AliasReply(alias: "member_10001"), keys: ["alias"])
        case .aliasDelete, .aliasGet:
            SchemaFixture.expectPayload(DeviceRef(appKey: Self.app, registrationID: Self.rid), keys: Self.device)
            SchemaFixture.expectReply(AliasReply(alias: nil), keys: ["alias"])
        case .channelSubscribe:
            SchemaFixture.expectPayload(
                ChannelSubscribe(appKey: Self.app, registrationID: Self.rid, channel: "match-42",
                                 expiresAt: "2025-03-02T00:00:00Z", backgroundPush: true),
                keys: Self.device.union(["channel", "expires_at", "background_push"]))
            SchemaFixture.expectReply(Empty(), keys: [])
        case .channelUnsubscribe:
            SchemaFixture.expectPayload(ChannelRef(appKey: Self.app, registrationID: Self.rid, channel: "match-42"),
                                        keys: Self.device.union(["channel"]))
            SchemaFixture.expectReply(Empty(), keys: [])
        case .channelStatus:
            SchemaFixture.expectPayload(ChannelRef(appKey: Self.app, registrationID: Self.rid, channel: "match-42"),
                                        keys: Self.device.union(["channel"]))
            SchemaFixture.expectReply(ChannelStatus(subscribed: true), keys: ["subscribed"])
        case .channelReset:
            SchemaFixture.expectPayload(DeviceRef(appKey: Self.app, registrationID: Self.rid), keys: Self.device)
            SchemaFixture.expectReply(Empty(), keys: [])
        case .channelSync:
            let held = [ChannelSubscription(channel: "match-42", expiresAt: "2025-03-02T00:00:00Z", backgroundPush: false),
                        ChannelSubscription(channel: "news")]
            SchemaFixture.expectPayload(ChannelSync(appKey: Self.app, registrationID: Self.rid, subscriptions: held),
                                        keys: Self.device.union(["subscriptions"]))
            SchemaFixture.expectReply(ChannelSubscriptions(subscriptions: held), keys: ["subscriptions"])
        case .audienceResolve:
            SchemaFixture.expectPayload(
                AudienceResolve(appKey: Self.app, registrationIDs: [Self.rid], aliases: ["member_10001"],
                                tags: ["vip", "gold"], tagAnd: ["ios"], tagNot: ["churned"], cursor: "c:100", limit: 500),
                keys: ["app_key", "registration_id", "alias", "tag", "tag_and", "tag_not", "cursor", "limit"])
            SchemaFixture.expectReply(AudiencePage(registrationIDs: [Self.rid, "1a0018970a8b2c3e"], nextCursor: "c:600",
                                                   total: 1_234),
                                      keys: ["registration_ids", "next_cursor", "total"])
        case .tagsList:
            SchemaFixture.expectPayload(AppRef(appKey: Self.app), keys: ["app_key"])
            SchemaFixture.expectReply(TagsReply(tags: ["gold", "vip"]), keys: ["tags"])
        case .tagsCount:
            SchemaFixture.expectPayload(TagsCount(appKey: Self.app, tags: ["gold", "vip"]), keys: ["app_key", "tags"])
            SchemaFixture.expectReply(TagCounts(counts: ["gold": 3, "vip": 0]), keys: ["counts"])
        case .aliasLookup:
            SchemaFixture.expectPayload(AliasLookup(appKey: Self.app, alias: "member_10001"), keys: ["app_key", "alias"])
            SchemaFixture.expectReply(AliasDevices(registrationIDs: [Self.rid]), keys: ["registration_ids"])

        // badge
        case .badgeSet:
            SchemaFixture.expectPayload(BadgeSet(appKey: Self.app, registrationID: Self.rid, value: 99_999),
                                        keys: Self.device.union(["value"]))
            SchemaFixture.expectReply(BadgeValue(value: 99_999), keys: ["value"])
        case .badgeReset:
            SchemaFixture.expectPayload(DeviceRef(appKey: Self.app, registrationID: Self.rid), keys: Self.device)
            SchemaFixture.expectReply(BadgeValue(value: 0), keys: ["value"])
        case .badgeGet:
            SchemaFixture.expectPayload(DeviceRef(appKey: Self.app, registrationID: Self.rid), keys: Self.device)
            SchemaFixture.expectReply(BadgeValue(value: 7), keys: ["value"])
        case .badgeApply:
            SchemaFixture.expectPayload(
                BadgeApply(appKey: Self.app, registrationIDs: [Self.rid, "1a0018970a8b2c3e"], badge: "+1", msgID: "18100"),
                keys: ["app_key", "registration_ids", "badge", "msg_id"])
            SchemaFixture.expectReply(BadgeValues(values: [Self.rid: 8, "1a0018970a8b2c3e": 1]), keys: ["values"])

        // scheduler
        case .localAdd:
            SchemaFixture.expectPayload(
                LocalAdd(appKey: Self.app, registrationID: Self.rid, identifier: "sampleRequest",
                         content: SchemaFixture.content, trigger: LocalTrigger(timeInterval: 3_600, repeats: true)),
                keys: Self.device.union(["identifier", "content", "trigger"]))
            SchemaFixture.expectReply(LocalAdded(identifier: "sampleRequest", nextFireAt: "2025-03-01T09:00:00Z"),
                                      keys: ["identifier", "next_fire_at"])
        case .localRemove:
            SchemaFixture.expectPayload(
                LocalFilter(appKey: Self.app, registrationID: Self.rid, identifiers: ["sampleRequest"], delivered: true),
                keys: Self.device.union(["identifiers", "delivered"]))
            SchemaFixture.expectReply(LocalRemoved(removed: ["sampleRequest"]), keys: ["removed"])
        case .localFind:
            SchemaFixture.expectPayload(
                LocalFilter(appKey: Self.app, registrationID: Self.rid, identifiers: [], delivered: false),
                keys: Self.device.union(["identifiers", "delivered"]))
            SchemaFixture.expectReply(LocalFound(requests: [SchemaFixture.pending]), keys: ["requests"])
            SchemaFixture.expectReply(LocalFound(notifications: [SchemaFixture.delivered]), keys: ["notifications"])
        case .locationReport:
            SchemaFixture.expectPayload(
                LocationReport(appKey: Self.app, registrationID: Self.rid, latitude: 37.3354, longitude: -122.009201),
                keys: Self.device.union(["latitude", "longitude"]))
            SchemaFixture.expectReply(LocationReported(fired: ["arrive-office"]), keys: ["fired"])

        // analytics
        case .maStart:
            SchemaFixture.expectPayload(MAStart(appKey: Self.app, deviceID: "idfv-1", user: SchemaFixture.user),
                                        keys: ["app_key", "device_id", "user"])
            SchemaFixture.expectReply(MAStarted(euid: Self.euid), keys: ["euid"])
        case .maIdentify:
            SchemaFixture.expectPayload(MAIdentify(appKey: Self.app, euid: Self.euid, user: SchemaFixture.user),
                                        keys: ["app_key", "euid", "user_id", "anonymous_id", "email", "phone"])
            // `message` is both a body field and Reply's own, so only the body is compared whole.
            let identified = MAIdentified(euid: Self.euid, results: ["email": MAFieldResult(code: .success)])
            SchemaFixture.expectRoundTrip(identified)
            #expect(SchemaFixture.keys(Reply(identified, seq: 1)) == ["code", "seq", "euid", "message"])
            let reply = try? SchemaFixture.roundTrip(Reply(identified, seq: 1))
            #expect(reply?.body == identified)
            #expect(reply?.code == .success)
            #expect(reply?.seq == 1)
        case .maContact:
            SchemaFixture.expectPayload(MAContact(appKey: Self.app, euid: Self.euid, contacts: SchemaFixture.contacts),
                                        keys: ["app_key", "euid", "contacts"])
            SchemaFixture.expectReply(Empty(), keys: [])
        case .maEvents:
            SchemaFixture.expectPayload(
                MAEvents(appKey: Self.app, euid: Self.euid,
                         events: [MAEvent(name: "purchase", properties: ["amount": .number(9.99)], time: SchemaFixture.time)],
                         utm: ["utm_source": "newsletter"]),
                keys: ["app_key", "euid", "events", "utm"])
            SchemaFixture.expectReply(MAEventsAccepted(accepted: 1), keys: ["accepted"])
        case .maProperty:
            SchemaFixture.expectPayload(
                MAProperty(appKey: Self.app, euid: Self.euid, op: .set, properties: ["level": .string("gold")]),
                keys: ["app_key", "euid", "op", "properties"])
            SchemaFixture.expectReply(Empty(), keys: [])
        case .maChannelValue:
            SchemaFixture.expectPayload(MAChannelValue(appKey: Self.app, euid: Self.euid, channelID: 136, values: ["rid-1"]),
                                        keys: ["app_key", "euid", "channel_id", "values"])
            SchemaFixture.expectReply(Empty(), keys: [])
        case .maProfile:
            SchemaFixture.expectPayload(MAUserRef(appKey: Self.app, euid: Self.euid), keys: ["app_key", "euid"])
            SchemaFixture.expectReply(
                MAProfile(properties: ["level": .string("gold"), "score": .number(100)],
                          identities: MAUserID(userID: .string("member_10001")), contacts: SchemaFixture.contacts),
                keys: ["properties", "identities", "contacts"])
        case .statsReport:
            SchemaFixture.expectPayload(
                StatsReport(appKey: Self.app, registrationID: Self.rid, kind: .pageEnter, msgID: "18100",
                            page: "AViewController", time: SchemaFixture.time),
                keys: Self.device.union(["kind", "msg_id", "page", "time"]))
            SchemaFixture.expectReply(Empty(), keys: [])
        case .statsMessage:
            SchemaFixture.expectPayload(StatsMessage(appKey: Self.app, msgIDs: ["18100", "18101"]),
                                        keys: ["app_key", "msg_ids"])
            SchemaFixture.expectReply(
                MessageStats(messages: ["18100": MessageCounts(received: 10, displayed: 9, opened: 3, inappShow: 2,
                                                               inappClick: 1, voipReceived: 0)]),
                keys: ["messages"])
        case .statsEvents:
            SchemaFixture.expectPayload(
                StatsEvents(appKey: Self.app, from: "2025-03-01T00:00:00Z", to: "2025-03-02T00:00:00Z",
                            name: "purchase", bucket: .hour),
                keys: ["app_key", "from", "to", "name", "bucket"])
            SchemaFixture.expectReply(EventStats(buckets: [StatsBucket(start: "2025-03-01T00:00:00Z", count: 4)]),
                                      keys: ["buckets"])
        }
    }
}
