import Credentials
import Foundation
import JSON
@testable import PushKit
import Schema
import Testing

/// The push service's checks, through the worker's own adapter: every refusal has its JPush code,
/// and nothing of a refused push is stored.
@Suite("Push handler")
struct PushHandlerTests {
    let handler: PushHandler
    let p8: String
    static let app = "pushapp"

    let clock = ManualClock()

    init() throws {
        let directory = TestPaths.temporaryDirectory("push-handler")
        let keys = Process()
        keys.executableURL = URL(fileURLWithPath: "/bin/bash")
        keys.arguments = ["\(ApnsStandIn.sources)/make-keys.sh", directory]
        try keys.run()
        keys.waitUntilExit()
        p8 = try String(contentsOfFile: "\(directory)/AuthKey.p8", encoding: .utf8)
        let clock = self.clock
        handler = try PushHandler(path: directory + "/push.sqlite", secrets: .forTests, clock: { clock.now })
    }

    func call(_ command: String, _ payload: [String: JSONValue]) -> JSONValue {
        reply(handler, command, ["app_key": Self.app.json].merging(payload) { _, given in given }, principal: .app(appKey: Self.app))
    }

    func saveKey() {
        let saved = call("apns.credentials", ["team_id": "TEAM123456".json, "key_id": "KEY1234567".json, "bundle_id": "com.example.app".json,
                                              "p8": p8.json])
        #expect(saved.code == 0, "\(saved)")
    }

    func storedMessages() throws -> Int {
        try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM messages").int ?? -1 }
    }

    static let notification: JSONValue = .object(["platform": "ios".json, "notification": .object(["alert": "hi".json])])

    static func body(_ fields: [String: JSONValue]) -> JSONValue {
        .object(["platform": "ios".json].merging(fields) { _, given in given })
    }

    static func ios(_ fields: [String: JSONValue]) -> JSONValue { body(["notification": .object(["ios": .object(fields)])]) }

    /// (what is wrong, to, body, expected code)
    static let refusals: [(String, JSONValue?, JSONValue?, Int)] = [
        ("no to", nil, notification, 1002),
        ("to a word", "everyone".json, notification, 1003),
        ("to names nothing", .object([:]), notification, 1002),
        ("unknown audience kind", .object(["segment": .array(["a".json])]), notification, 1003),
        ("21 tags", .object(["tag": .array((0..<21).map { "t\($0)".json })]), notification, 1003),
        ("21 tag_not", .object(["tag_not": .array((0..<21).map { "t\($0)".json })]), notification, 1003),
        ("1001 registration IDs", .object(["registration_id": .array((0..<1001).map { "r\($0)".json })]), notification, 1003),
        ("1001 aliases", .object(["alias": .array((0..<1001).map { "a\($0)".json })]), notification, 1003),
        ("an empty tag list", .object(["tag": .array([])]), notification, 1003),
        ("no body", "all".json, nil, 1002),
        ("no platform", "all".json, .object(["notification": .object(["alert": "hi".json])]), 1002),
        ("android only", "all".json, .object(["platform": "android".json, "notification": .object(["alert": "hi".json])]), 1003),
        ("nothing to send", "all".json, body([:]), 1002),
        ("voip with a notification", "all".json, body(["voip": .object([:]), "notification": .object(["alert": "hi".json])]), 1003),
        ("a custom message without msg_content", "all".json, body(["message": .object(["title": "x".json])]), 1002),
        ("a custom message with a notification", "all".json,
         body(["message": .object(["msg_content": "x".json]), "notification": .object(["alert": "hi".json])]), 1003),
        ("custom message extras not an object", "all".json, body(["message": .object(["msg_content": "x".json, "extras": "e".json])]), 1003),
        ("an in-app message of type popup", "all".json,
         body(["inapp_message": .object(["type": "popup".json, "title": "t".json, "content": "c".json])]), 1003),
        ("an in-app message without content", "all".json, body(["inapp_message": .object(["type": "banner".json, "title": "t".json])]), 1002),
        ("in-app target not a list", "all".json,
         body(["inapp_message": .object(["type": "full".json, "title": "t".json, "content": "c".json, "target": "home".json])]), 1003),
        ("in-app expires_at not a time", "all".json,
         body(["inapp_message": .object(["type": "full".json, "title": "t".json, "content": "c".json, "expires_at": "soon".json])]), 1003),
        ("notification_reminder not a boolean", "all".json,
         body(["notification": .object(["alert": "a".json]), "options": .object(["notification_reminder": "yes".json])]), 1003),
        ("an empty notification", "all".json, ios([:]), 1002),
        ("badge x1", "all".json, ios(["alert": "a".json, "badge": "x1".json]), 1003),
        ("badge +100", "all".json, ios(["alert": "a".json, "badge": "+100".json]), 1003),
        ("badge 100000", "all".json, ios(["alert": "a".json, "badge": .number(100_000)]), 1003),
        ("badge 100", "all".json, ios(["alert": "a".json, "badge": .number(100)]), 1003),
        ("badge 1.5", "all".json, ios(["alert": "a".json, "badge": .number(1.5)]), 1003),
        ("interruption level", "all".json, ios(["alert": "a".json, "interruption-level": "loud".json]), 1003),
        ("a payload over 4096 bytes", "all".json, ios(["alert": String(repeating: "x", count: 4100).json]), 1005),
        ("extras pushing it over", "all".json, ios(["alert": "a".json, "extras": .object(["blob": String(repeating: "y", count: 4050).json])]), 1005),
        ("a VoIP payload over 5120 bytes", "all".json, body(["voip": .object(["blob": String(repeating: "z", count: 5120).json])]), 1005),
        ("extras named aps", "all".json, ios(["alert": "a".json, "extras": .object(["aps": "x".json])]), 1003),
        ("live activity without an id", "all".json,
         body(["live_activity": .object(["ios": .object(["event": "update".json, "content-state": .object([:])])])]), 1002),
        ("live activity event pause", .object(["live_activity_id": "m1".json]),
         body(["live_activity": .object(["ios": .object(["event": "pause".json, "content-state": .object([:])])])]), 1003),
        ("live activity id over 24 bytes", .object(["live_activity_id": String(repeating: "l", count: 25).json]),
         body(["live_activity": .object(["ios": .object(["event": "end".json, "content-state": .object([:])])])]), 1003),
        ("a live activity id on a notification", .object(["live_activity_id": "m1".json]), notification, 1003),
        ("negative time_to_live", "all".json, body(["notification": .object(["alert": "a".json]), "options": .object(["time_to_live": .number(-1)])]), 1003),
        ("an unknown option", "all".json, body(["notification": .object(["alert": "a".json]), "options": .object(["speed": .number(1)])]), 1003),
        ("a collapse id with a line break", "all".json,
         body(["notification": .object(["alert": "a".json]), "options": .object(["apns_collapse_id": "a\r\nx-evil: 1".json])]), 1003),
        ("a collapse id over 64 bytes", "all".json,
         body(["notification": .object(["alert": "a".json]), "options": .object(["apns_collapse_id": String(repeating: "c", count: 65).json])]), 1003),
        ("a cid of 1e300", "all".json,
         body(["notification": .object(["alert": "a".json]), "options": .object(["cid": .number(1e300)])]), 1003),
        ("a collapse id of 1.5", "all".json,
         body(["notification": .object(["alert": "a".json]), "options": .object(["apns_collapse_id": .number(1.5)])]), 1003),
        ("a collapse id ending in a space", "all".json,
         body(["notification": .object(["alert": "a".json]), "options": .object(["apns_collapse_id": "trail ".json])]), 1003),
        ("a collapse id outside ASCII", "all".json,
         body(["notification": .object(["alert": "a".json]), "options": .object(["apns_collapse_id": "caf\u{e9}".json])]), 1003),
        ("an alert title that is a number", "all".json, ios(["alert": .object(["title": .number(5)])]), 1003),
        ("badge 500 (N is 0...99, as badge.apply takes it)", "all".json, ios(["alert": "a".json, "badge": .number(500)]), 1003),
        ("badge \"500\"", "all".json, ios(["alert": "a".json, "badge": "500".json]), 1003),
        ("big_push_duration over a day", "all".json,
         body(["notification": .object(["alert": "a".json]), "options": .object(["big_push_duration": .number(1441)])]), 1003),
    ]

    @Test("every bad push is refused with its code, by push.send and push.validate alike, and nothing is stored")
    func refusals() throws {
        saveKey()
        for (what, to, body, code) in Self.refusals {
            var payload: [String: JSONValue] = [:]
            if let to { payload["to"] = to }
            if let body { payload["body"] = body }
            for command in ["push.send", "push.validate"] {
                let answer = call(command, payload)
                #expect(answer.code == code, "\(command) with \(what): \(answer)")
                #expect(answer["msg_id"] == nil)
                #expect(answer["message"]?.string?.isEmpty == false)
            }
        }
        #expect(try storedMessages() == 0)
    }

    @Test("an app without an APNs key cannot push; a key that is not a P-256 .p8 is refused and never stored")
    func credentials() throws {
        #expect(call("push.send", ["to": "all".json, "body": Self.notification]).code == 1003)
        let bad = call("apns.credentials", ["team_id": "TEAM123456".json, "key_id": "KEY1234567".json, "bundle_id": "com.example.app".json,
                                            "p8": "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----".json])
        #expect(bad.code == 1003)
        #expect(call("apns.credentials", ["team_id": "TEAM".json, "key_id": "KEY1234567".json, "bundle_id": "com.example.app".json, "p8": p8.json]).code == 1003)
        #expect(call("apns.credentials", ["team_id": "TEAM123456".json, "key_id": "KEY1234567".json, "bundle_id": "com.example.app".json]).code == 1002)
        #expect(try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM credentials").int } == 0)
        saveKey()
        let stored = try handler.storage.store.read { db in try db.row("SELECT * FROM credentials") }
        let sealed = try #require(stored?["sealed_p8"].data)
        #expect(!String(decoding: sealed, as: UTF8.self).contains("PRIVATE KEY"), "the key is stored sealed")
        #expect(call("push.send", ["to": "all".json, "body": Self.notification]).code == 0)
    }

    @Test("validate stores nothing; send stores the push once per cid; status, device status and withdraw answer for it")
    func acceptance() throws {
        saveKey()
        let checked = call("push.validate", ["to": "all".json, "body": Self.notification, "request_id": "r-1".json])
        #expect(checked.code == 0 && checked["msg_id"] == nil && checked["request_id"]?.string == "r-1")
        #expect(try storedMessages() == 0)

        let options: JSONValue = .object(["platform": "ios".json, "notification": .object(["alert": "a".json]), "options": .object(["cid": "c-9".json])])
        let sent = call("push.send", ["to": "all".json, "body": options])
        let msgID = try #require(sent["msg_id"]?.string)
        #expect(call("push.send", ["to": "all".json, "body": options])["msg_id"]?.string == msgID)
        #expect(try storedMessages() == 1)

        let status = call("push.status", ["msg_ids": .array([msgID.json, "999".json])])
        #expect(status["messages"]?[msgID]?["state"]?.string == "queued")
        #expect(status["messages"]?["999"] == nil)
        #expect(call("push.status", ["msg_ids": .array((0..<101).map { "\($0)".json })]).code == 1003)
        #expect(call("push.status", [:]).code == 1002)
        #expect(call("push.device_status", ["msg_id": msgID.json, "registration_ids": .array(["r1".json])])["devices"]?["r1"]?["status"]?.string
                == "not_target")

        #expect(call("push.withdraw", ["msg_id": msgID.json]).code == 0)
        #expect(call("push.status", ["msg_ids": .array([msgID.json])])["messages"]?[msgID]?["state"]?.string == "withdrawn")
        #expect(call("push.withdraw", ["msg_id": "42".json]).code == 1003)
        // Another app's message is not this app's to read or withdraw.
        let other = reply(handler, "push.withdraw", ["app_key": "otherapp".json, "msg_id": msgID.json], principal: .app(appKey: "otherapp"))
        #expect(other.code == 1003)
    }

    @Test("a cid answers its first msg_id for a day, then is forgotten")
    func cidLifetime() throws {
        saveKey()
        let body: JSONValue = .object(["platform": "ios".json, "notification": .object(["alert": "a".json]), "options": .object(["cid": "c-1".json])])
        let first = try #require(call("push.send", ["to": "all".json, "body": body])["msg_id"]?.string)
        clock.advance(86_000)
        #expect(call("push.send", ["to": "all".json, "body": body])["msg_id"]?.string == first)
        clock.advance(500)
        let second = try #require(call("push.send", ["to": "all".json, "body": body])["msg_id"]?.string)
        #expect(second != first)
        try handler.storage.store.write { db in try handler.tick(now: Date(timeIntervalSince1970: clock.now + 86_401), in: db) }
        #expect(try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM cids").int } == 0, "pruned after a day")
    }
}

/// The `apns-id` of a message's notification to a device: a UUID APNs takes, the same every time.
@Suite("apns-id")
struct ApnsIDTests {
    @Test func anApnsIDIsAUUIDAndTheSameForTheSameMessageAndDevice() throws {
        let uuid = try Regex("^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        var seen: Set<String> = []
        for message in 0..<50 {
            for device in 0..<20 {
                let id = ApnsID.of(msgID: "\(1_000_000_000 + message)", registrationID: "rid\(device)")
                #expect(id.wholeMatch(of: uuid) != nil, "\(id)")
                #expect(id == ApnsID.of(msgID: "\(1_000_000_000 + message)", registrationID: "rid\(device)"))
                seen.insert(id)
            }
        }
        #expect(seen.count == 1000, "each (message, device) has its own")
    }

    /// The ids a running push gives stay the same across versions (apns remembers them to send a
    /// notification once): HMAC-SHA256 under "pushbus apns-id" of `msg_id/registration_id`, as a v5 UUID.
    @Test func anApnsIDIsTheSameAcrossVersions() {
        #expect(ApnsID.of(msgID: "1000000001", registrationID: "rid1") == "332b3a71-1cc3-5c95-8812-e62cbabebf52")
        let key = HMACKey(ApnsID.secret)
        #expect(ApnsID.of(msgID: "1000000042", registrationID: "6b152bc563333ab96d04", key: key) == "606f9737-a8de-59af-a07a-888c3b8b5a6e")
        #expect(ApnsID.of(msgID: "1000000001", registrationID: "rid1", key: key) == "332b3a71-1cc3-5c95-8812-e62cbabebf52")
    }
}
