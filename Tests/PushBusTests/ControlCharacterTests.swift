import Foundation
import JSON
import Schema
import Testing
@testable import ChannelKit

/// Names an app or a device gives (a schedule's name, a push's request_id, a page) hold no control
/// character: each is refused with the code its command gives a bad value. Real processes, the
/// channel's WebSocket frames by their reader.
@Suite("Control characters in names (integration)", .serialized)
struct ControlCharacterTests {
    static let bad = ["a\u{0}b", "a\tb", "a\nb", "a\u{1B}[2Jb", "a\u{7F}b", "a\u{85}b", "\u{0}"]
    static let good = ["Home page", "主页", "a-b_c.d/e"]

    @Test func aScheduleNameARequestIDOrAPageWithAControlCharacterIsRefused() throws {
        let push = try PushStack(appKey: "ctlapp", services: ["registration", "tagging", "badge", "analytics", "scheduler"])
        try push.stack.startService("channel", extra: ["--listen", "127.0.0.1:\(Ports.free())"])
        let api = try ApiServer(stack: push.stack, extra: ["--app-quota", "0"])
        let device = try push.device(String(format: "%064x", 0xC7))
        try push.waitUntilKnown([device])
        let auth = api.basic("ctlapp")
        let notification: JSONValue = .object(["platform": "ios".json, "notification": .object(["ios": .object(["alert": "x".json])])])
        func schedule(_ name: String) -> JSONValue {
            .object(["name": .string(name), "enabled": .bool(true), "trigger": .object(["single": .object(["time": "2099-01-01 08:00:00".json])]),
                     "push": .object(["to": .object(["registration_id": .array([.string(device)])]), "body": notification])])
        }
        func pushed(_ requestID: String) throws -> (status: Int, headers: [String: String], body: JSONValue) {
            try api.send("POST", "/v4/push", .object(["to": .object(["registration_id": .array([.string(device)])]), "body": notification,
                                                      "request_id": .string(requestID)]), authorization: auth)
        }
        func page(_ command: String, _ fields: [String: JSONValue]) throws -> JSONValue {
            try push.call(command, ["app_key": "ctlapp".json, "registration_id": .string(device)].merging(fields) { $1 })
        }

        let made = try api.send("POST", "/v4/schedules", schedule("morning"), authorization: auth)
        let id = try #require(made.body["schedule_id"]?.string, "\(made.body)")
        for name in Self.bad {
            let seen = name.debugDescription
            let created = try api.send("POST", "/v4/schedules", schedule(name), authorization: auth)
            #expect(created.status == 400 && created.body["error"]?["code"]?.number == 1003, "create \(seen): \(created.body)")
            let renamed = try api.send("PUT", "/v4/schedules/\(id)", .object(["name": .string(name)]), authorization: auth)
            #expect(renamed.status == 400 && renamed.body["error"]?["code"]?.number == 1003, "update \(seen): \(renamed.body)")
            let sent = try pushed(name)
            #expect(sent.status == 400 && sent.body["error"]?["code"]?.number == 1003, "request_id \(seen): \(sent.body)")
            #expect(try page("stats.report", ["kind": "page_enter".json, "page": .string(name)]).code == 6017, "stats.report \(seen)")
            #expect(try page("page.enter", ["page": .string(name)]).code == 6017, "page.enter \(seen)")
            #expect(try page("page.leave", ["page": .string(name)]).code == 6017, "page.leave \(seen)")
            #expect(throws: (any Error).self, "the channel's page frame \(seen)") {
                try LiveFrames.report(String(decoding: WireCodec.encode(JSONValue.object(["type": "page".json, "event": "enter".json, "page": .string(name)])),
                                             as: UTF8.self))
            }
        }
        for name in Self.good {
            #expect(try api.send("POST", "/v4/schedules", schedule(name), authorization: auth).status == 200, "\(name)")
            #expect(try pushed(name).status == 200, "\(name)")
            #expect(try page("stats.report", ["kind": "page_enter".json, "page": .string(name)]).code == 0, "\(name)")
            #expect(try page("page.enter", ["page": .string(name)]).code == 0, "\(name)")
        }
        #expect(try api.send("GET", "/v4/schedules/\(id)", authorization: auth).body["name"]?.string == "morning", "the name stays")
    }
}
