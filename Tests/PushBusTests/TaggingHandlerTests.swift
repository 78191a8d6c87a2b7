import Bus
import Credentials
import Foundation
import JSON
import Runtime
import SQLite
import Schema
import Testing
import WireTime
import Worker
@testable import TaggingKit

@Suite("tagging handler")
struct TaggingHandlerTests {
    let clock = ManualClock()
    let handler: TaggingHandler

    init() throws {
        let clock = self.clock
        handler = try TaggingHandler(path: TestPaths.temporaryDirectory("tagging") + "/tagging.sqlite",
                                     aliasMaxDevices: 2, clock: { clock.now })
    }

    func call(_ command: String, _ id: String, _ extra: [String: JSONValue] = [:], app: String = "app1") -> JSONValue {
        reply(handler, command, ["app_key": app.json, "registration_id": id.json].merging(extra) { $1 })
    }

    func tags(_ names: [String]) -> [String: JSONValue] { ["tags": .array(names.map(\.json))] }

    func strings(_ value: JSONValue?) -> [String]? {
        guard case .array(let items)? = value else { return nil }
        return items.compactMap(\.string)
    }

    func resolve(_ audience: [String: JSONValue], app: String = "app1") -> JSONValue {
        reply(handler, "audience.resolve", ["app_key": app.json].merging(audience) { $1 })
    }

    // MARK: tags

    @Test func addSetDeleteCleanAndGet() {
        #expect(strings(call("tags.add", "d1", tags(["b", "a", "b"]))["tags"]) == ["b", "a"], "the call's tags come back, once each")
        _ = call("tags.add", "d1", tags(["c"]))
        #expect(strings(call("tags.get", "d1")["tags"]) == ["a", "b", "c"])
        _ = call("tags.set", "d1", tags(["x", "a"]))
        #expect(strings(call("tags.get", "d1")["tags"]) == ["a", "x"], "set overwrites")
        _ = call("tags.delete", "d1", tags(["a", "never-had"].map { $0.replacingOccurrences(of: "-", with: "_") }))
        #expect(strings(call("tags.get", "d1")["tags"]) == ["x"])
        let cleaned = call("tags.clean", "d1")
        #expect(cleaned.code == 0)
        #expect(cleaned["tags"] == .null, "clean answers tags: null")
        #expect(strings(call("tags.get", "d1")["tags"]) == [])
        #expect(strings(call("tags.get", "unknown")["tags"]) == [], "a device never seen has no tags")
    }

    @Test func tagCodesComeFromTheRules() {
        #expect(call("tags.add", "d1", tags([])).code == 6001)
        #expect(call("tags.add", "d1").code == 6001)
        #expect(call("tags.add", "d1", tags(["no space"])).code == 6005)
        #expect(call("tags.add", "d1", tags([String(repeating: "标", count: 14)])).code == 6006)
        #expect(call("tags.add", "d1", tags((0...1000).map { "t\($0)" })).code == 6007)
        #expect(call("tags.add", "d1", tags((0..<126).map { String(format: "%040d", $0) })).code == 6008)
        #expect(call("tags.add", "d1", ["tags": "notalist".json]).code == 6017)
        #expect(reply(handler, "tags.add", ["registration_id": "d1".json, "tags": .array(["a".json])]).code == 1005)
        #expect(strings(call("tags.get", "d1")["tags"]) == [], "refused calls change nothing")
    }

    @Test func aDeviceHoldsAtMost1000Tags() throws {
        #expect(call("tags.add", "d1", tags((0..<600).map { "a\($0)" })).code == 0)
        clock.advance(1)
        #expect(call("tags.add", "d1", tags((0..<400).map { "b\($0)" })).code == 0)
        clock.advance(1)
        // In a batch, as the worker runs it: refused before it writes, so the batch has nothing to undo.
        let refused = try handler.storage.store.writeBatch { _ in call("tags.add", "d1", tags(["one_more", "a1"])).code }
        #expect(refused == 6018)
        #expect(handler.storage.store.batchesRunAgain == 0, "the refusal wrote nothing, so its batch did not run again")
        #expect(call("tags.valid", "d1", ["tag": "one_more".json])["is_bind"] == .bool(false), "the refused add changed nothing")
        #expect(call("tags.add", "d1", tags(["a1"])).code == 0, "adding a tag it holds keeps 1000")
        #expect(call("tags.set", "d1", tags(["fresh"])).code == 0)
        #expect(strings(call("tags.get", "d1")["tags"]) == ["fresh"])
    }

    @Test func validSaysWhetherATagIsBound() {
        _ = call("tags.add", "d1", tags(["vip"]))
        #expect(call("tags.valid", "d1", ["tag": "vip".json]) == .object(["code": .number(0), "tag": "vip".json, "is_bind": .bool(true)]))
        #expect(call("tags.valid", "d1", ["tag": "gold".json])["is_bind"] == .bool(false))
        #expect(call("tags.valid", "d2", ["tag": "vip".json])["is_bind"] == .bool(false))
        #expect(call("tags.valid", "d1", ["tag": "a b".json]).code == 6005)
        #expect(call("tags.valid", "d1").code == 6001)
    }

    @Test func moreThanTenSetsInTenSecondsIs6011() {
        for n in 0..<5 { #expect(call("tags.add", "d1", tags(["t\(n)"])).code == 0) }
        for n in 0..<5 { #expect(call("alias.set", "d1", ["alias": "a\(n)".json]).code == 0) }
        #expect(call("tags.add", "d1", tags(["late"])).code == 6011)
        #expect(call("alias.delete", "d1").code == 6011)
        #expect(call("tags.get", "d1").code == 0, "reads are not limited")
        #expect(call("tags.add", "d2", tags(["other"])).code == 0, "the limit is per device")
        #expect(call("tags.add", "d1", tags(["bad tag"])).code == 6005, "the charset is checked before the rate")
        clock.advance(10.1)
        #expect(call("tags.add", "d1", tags(["late"])).code == 0)
    }

    @Test func anotherAppsDeviceIsRefused() {
        _ = call("tags.add", "d1", tags(["vip"]))
        #expect(call("tags.add", "d1", tags(["x"]), app: "app2").code == 1008)
        #expect(call("tags.get", "d1", app: "app2").code == 1008)
        #expect(call("alias.set", "d1", ["alias": "x".json], app: "app2").code == 1008)
    }

    @Test func tagChangesArePublished() throws {
        _ = call("tags.add", "d1", tags(["a", "b"]))
        _ = call("tags.set", "d1", tags(["b", "c"]))
        _ = call("tags.add", "d1", tags(["c"]))
        let events = try handler.storage.outbox.takeCommitted().map { try JSONDecoder().decode(Event<TagsChangedEvent>.self, from: $0.event).body }
        #expect(events.map(\.added) == [["a", "b"], ["c"]])
        #expect(events.map(\.removed) == [[], ["a"]], "nothing changed on the third call, so no event")
    }

    // MARK: alias

    @Test func aliasSetGetDelete() throws {
        #expect(call("alias.set", "d1", ["alias": "user_1".json])["alias"] == "user_1".json)
        #expect(call("alias.get", "d1")["alias"] == "user_1".json)
        _ = call("alias.set", "d1", ["alias": "user_2".json])
        #expect(call("alias.get", "d1")["alias"] == "user_2".json, "one alias per device")
        let deleted = call("alias.delete", "d1")
        #expect(deleted.code == 0)
        #expect(deleted["alias"] == .null)
        #expect(call("alias.get", "d1")["alias"] == .null)
        let events = try handler.storage.outbox.takeCommitted().map { try JSONDecoder().decode(Event<AliasChangedEvent>.self, from: $0.event).body }
        #expect(events.map(\.alias) == ["user_1", "user_2", nil])
        #expect(events.map(\.previous) == [nil, "user_1", "user_2"])
    }

    @Test func aliasCodes() {
        #expect(call("alias.set", "d1").code == 6001)
        #expect(call("alias.set", "d1", ["alias": "".json]).code == 6001)
        #expect(call("alias.set", "d1", ["alias": "bad alias".json]).code == 6003)
        #expect(call("alias.set", "d1", ["alias": String(repeating: "别", count: 14).json]).code == 6004)
        #expect(call("alias.set", "d1", ["alias": String(repeating: "别", count: 13).json]).code == 0)
    }

    @Test func anAliasHoldsAtMostTheConfiguredDevices() throws {
        #expect(call("alias.set", "d1", ["alias": "family".json]).code == 0)
        #expect(call("alias.set", "d2", ["alias": "family".json]).code == 0)
        // In a batch, as the worker runs it: a new device refused at the cap writes nothing, not
        // even its entry, so its batch does not run again.
        let refused = try handler.storage.store.writeBatch { _ in call("alias.set", "d3", ["alias": "family".json]).code }
        #expect(refused == 6017)
        #expect(handler.storage.store.batchesRunAgain == 0, "the refusal wrote nothing")
        #expect(call("alias.set", "d1", ["alias": "family".json]).code == 0, "re-setting its own alias is fine")
        #expect(strings(reply(handler, "alias.lookup", ["app_key": "app1".json, "alias": "family".json])["registration_ids"]) == ["d1", "d2"])
        #expect(strings(reply(handler, "alias.lookup", ["app_key": "app2".json, "alias": "family".json])["registration_ids"]) == [])
    }

    // MARK: channels

    @Test func subscribeStatusUnsubscribeReset() {
        #expect(call("channel.subscribe", "d1", ["channel": "match-1".json, "background_push": .bool(true)]).code == 0)
        #expect(call("channel.status", "d1", ["channel": "match-1".json])["subscribed"] == .bool(true))
        #expect(call("channel.status", "d1", ["channel": "match-2".json])["subscribed"] == .bool(false))
        #expect(call("channel.unsubscribe", "d1", ["channel": "match-1".json]).code == 0)
        #expect(call("channel.status", "d1", ["channel": "match-1".json])["subscribed"] == .bool(false))
        _ = call("channel.subscribe", "d1", ["channel": "a".json])
        _ = call("channel.subscribe", "d1", ["channel": "b".json])
        #expect(call("channel.reset", "d1").code == 0)
        #expect(call("channel.status", "d1", ["channel": "a".json])["subscribed"] == .bool(false))
        #expect(call("channel.subscribe", "d1", ["channel": "has space".json]).code == 6017)
        #expect(call("channel.subscribe", "d1").code == 6001)
    }

    @Test func anExpiredSubscriptionIsNotSubscribedAndIsPurged() throws {
        let soon = RFC3339.string(from: Date(timeIntervalSince1970: clock.now + 60))
        let later = RFC3339.string(from: Date(timeIntervalSince1970: clock.now + 120))
        #expect(call("channel.subscribe", "d1", ["channel": "live".json, "expires_at": soon.json]).code == 0)
        #expect(call("channel.subscribe", "d2", ["channel": "live".json, "expires_at": later.json]).code == 0)
        #expect(handler.nextTick() == Date(timeIntervalSince1970: clock.now + 60), "the worker wakes at the first expiry")
        clock.advance(61)
        #expect(call("channel.status", "d1", ["channel": "live".json])["subscribed"] == .bool(false))
        #expect(call("channel.status", "d2", ["channel": "live".json])["subscribed"] == .bool(true))
        clock.advance(60)
        try handler.storage.store.write { db in try handler.tick(now: Date(timeIntervalSince1970: clock.now), in: db) }
        let left = try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM subscriptions").int }
        #expect(left == 0, "the timer purged the other")
        #expect(handler.nextTick() == nil)
    }

    @Test func subscribeRefusesBadOrPastExpiry() {
        let past = RFC3339.string(from: Date(timeIntervalSince1970: clock.now - 1))
        #expect(call("channel.subscribe", "d1", ["channel": "c".json, "expires_at": past.json]).code == 6017)
        #expect(call("channel.subscribe", "d1", ["channel": "c".json, "expires_at": "tomorrow".json]).code == 6017)
    }

    @Test func syncMakesTheServerMatchTheDeviceList() {
        _ = call("channel.subscribe", "d1", ["channel": "old".json])
        let future = RFC3339.string(from: Date(timeIntervalSince1970: clock.now + 3600))
        let past = RFC3339.string(from: Date(timeIntervalSince1970: clock.now - 5))
        let synced = call("channel.sync", "d1", ["subscriptions": .array([
            .object(["channel": "news".json]),
            .object(["channel": "match-9".json, "expires_at": future.json, "background_push": .bool(true)]),
            .object(["channel": "gone".json, "expires_at": past.json]),
        ])])
        #expect(synced.code == 0)
        #expect(synced["subscriptions"] == .array([
            .object(["channel": "match-9".json, "expires_at": future.json, "background_push": .bool(true)]),
            .object(["channel": "news".json, "background_push": .bool(false)]),
        ]))
        #expect(call("channel.status", "d1", ["channel": "old".json])["subscribed"] == .bool(false))
        #expect(call("channel.sync", "d1", ["subscriptions": .array([])])["subscriptions"] == .array([]))
        #expect(call("channel.sync", "d1").code == 6001)
    }

    // MARK: device deletion

    @Test func aDeletedDeviceIsForgotten() throws {
        _ = call("tags.add", "d1", tags(["vip", "gold"]))
        _ = call("alias.set", "d1", ["alias": "u1".json])
        _ = call("channel.subscribe", "d1", ["channel": "news".json])
        _ = call("tags.add", "d2", tags(["vip"]))
        let event = BusEvent(Event(publisher: "registration", sequence: 1, time: "2026-01-01T00:00:00Z",
                                   body: DeviceDeletedEvent(appKey: "app1", registrationID: "d1")))
        try handler.storage.store.write { db in try handler.apply(event, in: db) }
        #expect(strings(call("tags.get", "d1")["tags"]) == [])
        #expect(call("alias.get", "d1")["alias"] == .null)
        #expect(call("channel.status", "d1", ["channel": "news".json])["subscribed"] == .bool(false))
        #expect(reply(handler, "tags.count", ["app_key": "app1".json, "tags": .array(["vip".json, "gold".json])])["counts"]
                == .object(["vip": .number(1), "gold": .number(0)]))
        #expect(strings(reply(handler, "tags.list", ["app_key": "app1".json])["tags"]) == ["vip"])
    }

    @Test func noWriteBringsADeletedDeviceBackWhoeverSignsIt() throws {
        _ = call("tags.add", "d1", tags(["vip"]))
        let event = BusEvent(Event(publisher: "registration", sequence: 1, time: "2026-01-01T00:00:00Z",
                                   body: DeviceDeletedEvent(appKey: "app1", registrationID: "d1")))
        try handler.storage.store.write { db in
            try Tombstones.record(db, registrationID: "d1")   // as the worker's event subscription does
            try handler.apply(event, in: db)
        }
        let app = Principal.app(appKey: "app1")
        for (command, extra) in [("tags.add", tags(["vip"])), ("tags.set", tags(["vip"])), ("alias.set", ["alias": "u1".json]),
                                 ("channel.subscribe", ["channel": "news".json]),
                                 ("channel.sync", ["subscriptions": .array([.object(["channel": "news".json])])])] {
            let refused = reply(handler, command, ["app_key": "app1".json, "registration_id": "d1".json].merging(extra) { $1 },
                                principal: app)
            #expect(refused.code == 1008 && refused["message"] == "device deleted".json, "\(command): \(refused)")
        }
        #expect(resolve(["registration_id": .array(["d1".json])])["total"] == .number(0))
        #expect(strings(reply(handler, "alias.lookup", ["app_key": "app1".json, "alias": "u1".json])["registration_ids"]) == [])
        #expect(strings(reply(handler, "tags.list", ["app_key": "app1".json])["tags"]) == [])
    }

    // MARK: audience

    func populate() {
        // d1: vip gold; d2: vip; d3: gold churned; d4: vip churned; d5: (alias only)
        _ = call("tags.add", "d1", tags(["vip", "gold"]))
        _ = call("tags.add", "d2", tags(["vip"]))
        _ = call("tags.add", "d3", tags(["gold", "churned"]))
        _ = call("tags.add", "d4", tags(["vip", "churned"]))
        _ = call("alias.set", "d5", ["alias": "boss".json])
        _ = call("alias.set", "d2", ["alias": "boss".json])
        _ = call("tags.add", "x1", tags(["vip"]), app: "app2")
    }

    func ids(_ audience: [String: JSONValue]) -> [String]? { strings(resolve(audience)["registration_ids"]) }

    @Test func audienceKindsCombine() {
        populate()
        #expect(ids(["tag": .array(["vip".json])]) == ["d1", "d2", "d4"])
        #expect(ids(["tag": .array(["vip".json, "gold".json])]) == ["d1", "d2", "d3", "d4"], "OR")
        #expect(ids(["tag_and": .array(["vip".json, "gold".json])]) == ["d1"], "AND")
        #expect(ids(["tag": .array(["vip".json, "gold".json]), "tag_not": .array(["churned".json])]) == ["d1", "d2"])
        #expect(ids(["tag": .array(["gold".json, "vip".json]), "tag_and": .array(["churned".json]),
                     "tag_not": .array(["gold".json])]) == ["d4"])
        #expect(ids(["tag_not": .array(["churned".json])]) == ["d1", "d2", "d5"], "every device but the excluded")
        #expect(ids(["alias": .array(["boss".json])]) == ["d2", "d5"])
        #expect(ids(["alias": .array(["boss".json]), "tag": .array(["vip".json])]) == ["d2"])
        #expect(ids(["registration_id": .array(["d3".json, "d4".json, "x1".json]), "tag_not": .array(["vip".json])]) == ["d3"])
        #expect(ids(["tag": .array(["nosuchtag".json])]) == [])
        #expect(ids(["tag_and": .array(["vip".json, "nosuchtag".json])]) == [])
        #expect(strings(resolve(["tag": .array(["vip".json])], app: "app2")["registration_ids"]) == ["x1"], "apps never mix")
    }

    @Test func audienceChannelsMatchUnexpiredSubscriptions() {
        populate()
        let soon = RFC3339.string(from: Date(timeIntervalSince1970: clock.now + 30))
        _ = call("channel.subscribe", "d1", ["channel": "final".json])
        _ = call("channel.subscribe", "d3", ["channel": "final".json, "expires_at": soon.json])
        #expect(ids(["channel": .array(["final".json])]) == ["d1", "d3"])
        #expect(ids(["channel": .array(["final".json]), "tag": .array(["gold".json])]) == ["d1", "d3"])
        clock.advance(31)
        #expect(ids(["channel": .array(["final".json])]) == ["d1"])
        #expect(ids(["tag": .array(["gold".json]), "channel": .array(["final".json])]) == ["d1"])
    }

    @Test func audiencePagesByCursorWithATotal() {
        for n in 0..<25 { _ = call("tags.add", "p\(n)", tags(["all"])) }
        var seen: [String] = []
        var cursor: JSONValue?
        var pages = 0
        repeat {
            var audience: [String: JSONValue] = ["tag": .array(["all".json]), "limit": .number(10)]
            if let cursor { audience["cursor"] = cursor }
            let page = resolve(audience)
            #expect(page["total"] == .number(25))
            seen += strings(page["registration_ids"]) ?? []
            cursor = page["next_cursor"].flatMap { $0 == .null ? nil : $0 }
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(seen == (0..<25).map { "p\($0)" })
    }

    @Test func audienceRefusesBadRequests() {
        #expect(resolve([:]).code == 6001)
        #expect(resolve(["tag": .array([])]).code == 6001)
        #expect(resolve(["tag": .array(["bad tag".json])]).code == 6005)
        #expect(resolve(["tag": .array((0...20).map { "t\($0)".json })]).code == 6017)
        #expect(resolve(["tag": .array(["a".json]), "limit": .number(0)]).code == 6017)
        #expect(resolve(["tag": .array(["a".json]), "limit": .number(10_001)]).code == 6017)
        #expect(resolve(["tag": .array(["a".json]), "cursor": "garbage".json]).code == 6017)
        #expect(reply(handler, "audience.resolve", ["tag": .array(["a".json])]).code == 1005)
    }

    @Test func tagListsAndCounts() {
        populate()
        #expect(strings(reply(handler, "tags.list", ["app_key": "app1".json])["tags"]) == ["churned", "gold", "vip"])
        #expect(reply(handler, "tags.count", ["app_key": "app1".json, "tags": .array(["vip".json, "gold".json, "none".json])])["counts"]
                == .object(["vip": .number(3), "gold": .number(2), "none": .number(0)]))
        #expect(reply(handler, "tags.count", ["app_key": "app1".json, "tags": .array([])]).code == 6001)
        #expect(reply(handler, "tags.count", ["app_key": "app1".json, "tags": .array(["a b".json])]).code == 6005)
        _ = call("tags.delete", "d3", tags(["churned"]))
        _ = call("tags.delete", "d4", tags(["churned"]))
        #expect(strings(reply(handler, "tags.list", ["app_key": "app1".json])["tags"]) == ["gold", "vip"], "a tag with no device is gone")
    }

    // MARK: canonical equivalence

    /// U+F900 is a CJK compatibility ideograph whose canonical decomposition is U+8C48: Swift calls
    /// them equal, SQLite compares bytes. Tags, aliases and channels are stored in NFC, so every
    /// command finds a name under either spelling, whichever was sent first; the next handler on the
    /// same file, with nothing in memory, finds it in the database.
    @Test(arguments: [("\u{F900}", "\u{8C48}"), ("\u{8C48}", "\u{F900}")])
    func canonicallyEquivalentNamesAreOneName(sent: String, asked: String) throws {
        let path = TestPaths.temporaryDirectory("tagging-nfc") + "/tagging.sqlite"
        let device: [String: JSONValue] = ["app_key": "app1".json, "registration_id": "d1".json]
        let first = try TaggingHandler(path: path)
        #expect(reply(first, "tags.add", device.merging(tags([sent])) { $1 }).code == 0)
        #expect(reply(first, "alias.set", device.merging(["alias": sent.json]) { $1 }).code == 0)
        #expect(reply(first, "channel.subscribe", device.merging(["channel": ("live" + sent).json]) { $1 }).code == 0)

        func check(_ handler: TaggingHandler) {
            func ask(_ command: String, _ payload: [String: JSONValue]) -> JSONValue {
                reply(handler, command, ["app_key": "app1".json].merging(payload) { $1 })
            }
            #expect(strings(ask("tags.get", device)["tags"])?.first?.unicodeScalars.map(\.value) == [0x8C48], "stored in NFC")
            #expect(ask("alias.get", device)["alias"]?.string?.unicodeScalars.map(\.value) == [0x8C48])
            #expect(ask("tags.valid", device.merging(["tag": asked.json]) { $1 })["is_bind"] == .bool(true))
            #expect(ask("tags.count", ["tags": .array([asked.json])])["counts"] == .object(["\u{8C48}": .number(1)]))
            #expect(strings(ask("alias.lookup", ["alias": asked.json])["registration_ids"]) == ["d1"])
            #expect(strings(ask("audience.resolve", ["tag": .array([asked.json])])["registration_ids"]) == ["d1"])
            #expect(strings(ask("audience.resolve", ["alias": .array([asked.json])])["registration_ids"]) == ["d1"])
            #expect(strings(ask("audience.resolve", ["channel": .array([("live" + asked).json])])["registration_ids"]) == ["d1"])
            #expect(ask("channel.status", device.merging(["channel": ("live" + asked).json]) { $1 })["subscribed"] == .bool(true))
        }
        check(first)
        try first.close()
        check(try TaggingHandler(path: path))
    }
}

@Suite("tagging schema")
struct TaggingSchemaTests {
    /// A database written before the device's tags moved into its row opens with every device's
    /// tags, sorted, and every tag still finding its devices.
    @Test func tagsBoundBeforeTheMoveIntoTheDeviceRowAreKept() throws {
        let path = TestPaths.temporaryDirectory("tagging-migrate") + "/tagging.sqlite"
        let before = Array(TaggingSchema.migrations.prefix { $0.id != "tagging-2" })
        let old = try Store(path: path, migrations: before)
        try old.write { db in
            try db.execute("""
                INSERT INTO devices (id, registration_id, app_key) VALUES (1, 'd1', 'app1'), (2, 'd2', 'app1'), (3, 'd3', 'app1');
                INSERT INTO tags (id, app_key, name, devices) VALUES (1, 'app1', 'zeta', 2), (2, 'app1', 'alpha', 1), (3, 'app1', '北京', 1);
                INSERT INTO device_tags (tag, device) VALUES (1, 1), (2, 1), (3, 1), (1, 2);
                """)
        }
        let handler = try TaggingHandler(path: path)
        func get(_ id: String) -> JSONValue { reply(handler, "tags.get", ["app_key": "app1".json, "registration_id": id.json]) }
        #expect(get("d1")["tags"] == .array(["alpha", "zeta", "北京"].map(\.json)), "sorted by UTF-8 bytes, as SQLite sorts")
        #expect(get("d2")["tags"] == .array(["zeta".json]))
        #expect(get("d3")["tags"] == .array([]))
        let audience = reply(handler, "audience.resolve", ["app_key": "app1".json, "tag": .array(["zeta".json])])
        #expect(audience["registration_ids"] == .array(["d1".json, "d2".json]))
        _ = reply(handler, "tags.delete", ["app_key": "app1".json, "registration_id": "d1".json, "tags": .array(["zeta".json])])
        #expect(get("d1")["tags"] == .array(["alpha", "北京"].map(\.json)))
        #expect(reply(handler, "tags.count", ["app_key": "app1".json, "tags": .array(["zeta".json])])["counts"]?["zeta"] == .number(1))
    }
}

extension TaggingHandlerTests {
    func counts(_ names: [String]) -> JSONValue? {
        reply(handler, "tags.count", ["app_key": "app1".json, "tags": .array(names.map(\.json))])["counts"]
    }

    /// Inside one group-committed batch, as the worker runs it: a request refused after it bound
    /// tags leaves no count and no tag behind, reads in the batch see the batch's own counts, and a
    /// whole batch rolled back leaves nothing either; tags it created can be created again.
    @Test func countsAndTagIDsFollowRequestsAndBatchesThatRollBack() throws {
        struct Abandoned: Error {}
        #expect(call("tags.add", "full", tags((0..<1000).map { "f\($0)" })).code == 0)
        try handler.storage.store.write { _ in
            #expect(call("tags.add", "d1", tags(["gold", "new1"])).code == 0)
            #expect(call("tags.add", "full", tags(["gold", "new3"])).code == 6018, "bound, then refused")
            #expect(counts(["gold", "new1", "new3", "f1"]) == .object(["gold": .number(1), "new1": .number(1), "new3": .number(0), "f1": .number(1)]))
            #expect(strings(reply(handler, "tags.list", ["app_key": "app1".json])["tags"])?.contains("new3") == false)
            #expect(call("tags.delete", "d1", tags(["new1"])).code == 0)
            #expect(counts(["new1"]) == .object(["new1": .number(0)]), "unbound in the same batch")
        }
        #expect(counts(["gold", "new1", "new3"]) == .object(["gold": .number(1), "new1": .number(0), "new3": .number(0)]))
        #expect(strings(reply(handler, "tags.list", ["app_key": "app1".json])["tags"])?.filter { !$0.hasPrefix("f") } == ["gold"])
        #expect(throws: Abandoned.self) {
            try handler.storage.store.write { _ in
                #expect(call("tags.add", "d2", tags(["gold", "new4"])).code == 0)
                #expect(call("tags.delete", "d1", tags(["gold"])).code == 0)
                throw Abandoned()
            }
        }
        #expect(counts(["gold", "new4"]) == .object(["gold": .number(1), "new4": .number(0)]), "the whole batch is undone")
        #expect(strings(call("tags.get", "d1")["tags"]) == ["gold"] && strings(call("tags.get", "d2")["tags"]) == [])
        #expect(call("tags.add", "d2", tags(["new3", "new4"])).code == 0, "tags the rolled-back writes created are created again")
        #expect(counts(["gold", "new3", "new4"]) == .object(["gold": .number(1), "new3": .number(1), "new4": .number(1)]))
        #expect(strings(resolve(["tag": .array(["new3".json])])["registration_ids"]) == ["d2"])
        let orphans = try handler.storage.store.read { db in
            try db.value("SELECT COUNT(*) FROM device_tags WHERE tag NOT IN (SELECT id FROM tags)").int
        }
        #expect(orphans == 0, "no binding points at a tag that is gone")
    }

    @Test func audiencesFollowTheStagedEntriesThroughRollbacks() throws {
        struct Abandoned: Error {}
        let gold: [String: JSONValue] = ["tag": .array(["gold".json])]
        #expect(call("tags.add", "d1", tags(["gold"])).code == 0)
        #expect(throws: Abandoned.self) {
            try handler.storage.store.write { _ in
                #expect(call("tags.add", "d2", tags(["gold"])).code == 0)
                #expect(call("tags.delete", "d1", tags(["gold"])).code == 0)
                throw Abandoned()
            }
        }
        #expect(ids(gold) == ["d1"], "a batch that rolled back stages nothing of its own")
        #expect(call("tags.add", "d3", tags(["gold"])).code == 0)
        #expect(throws: Abandoned.self) {
            try handler.storage.store.write { _ in
                #expect(ids(gold) == ["d1", "d3"], "the staged entries are written before the index is read")
                throw Abandoned()
            }
        }
        #expect(ids(gold) == ["d1", "d3"], "entries written in a batch that rolled back are staged again")
    }

    @Test func stagedEntriesAreWrittenOnceEnoughWait() throws {
        let devices = TagStore.stagedEntryLimit / 4 + 1
        try handler.storage.store.write { _ in
            for device in 0..<devices { #expect(call("tags.add", "d\(device)", tags(["a", "b", "c", "d"])).code == 0) }
        }
        let written = try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM device_tags").int }
        #expect(written == devices * 4, "the commit wrote them, though no audience was asked for")
    }

    /// Past `stagedEntryLimit`, the waiting entries are written a step per commit, never all in one
    /// (that commit stalled every request behind it); a read still sees every one of them, and a
    /// batch that wrote the sweep and rolled back leaves it waiting.
    @Test func waitingEntriesAreWrittenAStepPerCommit() throws {
        struct Abandoned: Error {}
        func written() throws -> Int {
            try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM device_tags").int ?? 0 }
        }
        let devices = TagStore.stagedEntryLimit / 4 + 16
        var previous = 0, largestStep = 0
        for device in 0..<devices {
            #expect(call("tags.add", "d\(device)", tags(["a", "b", "c", "d"])).code == 0)
            let now = try written()
            largestStep = max(largestStep, now - previous)
            previous = now
        }
        #expect(previous >= 16 * TagStore.sweepStep, "each commit past the limit wrote a step: \(previous) written")
        #expect(largestStep <= TagStore.sweepStep, "no commit wrote more than a step: \(largestStep)")
        #expect(throws: Abandoned.self) {
            try handler.storage.store.write { _ in
                #expect(resolve(["tag": .array(["d".json])])["total"] == .number(Double(devices)), "a read writes the sweep and the staged entries first")
                throw Abandoned()
            }
        }
        #expect(try written() == previous, "the rolled-back batch wrote nothing")
        #expect(resolve(["tag": .array(["a".json])])["total"] == .number(Double(devices)), "what it wrote waits again, and is written")
        #expect(try written() == devices * 4)
    }

    /// The device entries kept in memory follow the rows through rollbacks: a batch that rolled back
    /// leaves no tag, alias, new device or deletion of its own behind, in the answers or in the rows.
    @Test func deviceEntriesFollowTheRowsThroughRollbacks() throws {
        struct Abandoned: Error {}
        #expect(call("tags.add", "d1", tags(["gold"])).code == 0)
        #expect(call("alias.set", "d1", ["alias": "one".json]).code == 0)
        #expect(call("tags.add", "d9", tags(["gold"])).code == 0)
        #expect(throws: Abandoned.self) {
            try handler.storage.store.write { db in
                #expect(call("tags.set", "d1", tags(["silver"])).code == 0)
                #expect(call("alias.set", "d1", ["alias": "two".json]).code == 0)
                #expect(call("tags.add", "d2", tags(["new"])).code == 0)
                let deleted = BusEvent(Event(publisher: "registration", sequence: 1, time: "2026-01-01T00:00:00Z",
                                             body: DeviceDeletedEvent(appKey: "app1", registrationID: "d9")))
                try handler.apply(deleted, in: db)
                #expect(strings(call("tags.get", "d1")["tags"]) == ["silver"], "inside the batch, its own changes are seen")
                #expect(strings(call("tags.get", "d9")["tags"]) == [])
                throw Abandoned()
            }
        }
        #expect(strings(call("tags.get", "d1")["tags"]) == ["gold"])
        #expect(call("alias.get", "d1")["alias"] == "one".json)
        #expect(strings(call("tags.get", "d9")["tags"]) == ["gold"], "the deletion rolled back")
        #expect(strings(call("tags.get", "d2")["tags"]) == [], "the device made in the batch is unknown again")
        #expect(call("tags.valid", "d2", ["tag": "new".json])["is_bind"] == .bool(false))
        let rows = try handler.storage.store.read { db in
            try db.rows("SELECT registration_id, alias, tags FROM devices ORDER BY registration_id").map {
                "\($0[0].string ?? "") \($0[1].string ?? "-") \($0[2].string ?? "")"
            }
        }
        #expect(rows == ["d1 one gold", "d9 - gold"])
    }

    /// `--device-cache 0` keeps no entry: each command reads its device's row, as a row changed
    /// behind the handler's back shows (with the cache, the entry read before is answered).
    @Test func withoutADeviceCacheEachCommandReadsItsRow() throws {
        let directory = TestPaths.temporaryDirectory("tagging-uncached")
        for (entries, expected) in [(0, ["changed"]), (TaggingHandler.defaultDeviceCacheEntries, ["gold"])] {
            let uncached = try TaggingHandler(path: "\(directory)/\(entries).sqlite", deviceCacheEntries: entries)
            let keys: [String: JSONValue] = ["app_key": "app1".json, "registration_id": "d1".json]
            #expect(reply(uncached, "tags.add", keys.merging(tags(["gold"])) { $1 }).code == 0)
            try uncached.storage.store.write { db in try db.run("UPDATE devices SET tags = 'changed'") }
            #expect(strings(reply(uncached, "tags.get", keys)["tags"]) == expected, "cache of \(entries)")
        }
    }

    /// A cache that starts over keeps answering from the rows, and a rollback across the restart
    /// still puts back what each entry was.
    @Test func deviceEntriesStartOverAtTheirLimit() throws {
        struct Abandoned: Error {}
        let store = handler.storage.store
        let index = DeviceIndex(store: store, cachedEntryLimit: 2)
        try store.write { db in
            for n in 0..<3 { _ = try index.create(db, registrationID: "x\(n)", appKey: "app1") }
        }
        #expect(throws: Abandoned.self) {
            try store.write { db in
                let first = try #require(try index.find(db, registrationID: "x0"))
                try index.setTags(db, device: first, to: ["a"])
                for n in 1..<3 { _ = try index.find(db, registrationID: "x\(n)") }   // past the limit: starts over
                #expect(try index.find(db, registrationID: "x0")?.tagText == "a")
                throw Abandoned()
            }
        }
        let (first, last) = try store.write { db in
            (try index.find(db, registrationID: "x0"), try index.find(db, registrationID: "x2"))
        }
        #expect(first?.tagText == "", "the rollback put back what x0 was")
        #expect(last?.registrationID == "x2")
    }
}
