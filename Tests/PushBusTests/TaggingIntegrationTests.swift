import Client
import Foundation
import JSON
import Schema
import Testing

/// The real `gateway`, `registration` and `tagging` executables over TCP, through `device` routing.
@Suite("tagging (integration)", .serialized)
struct TaggingIntegrationTests {
    func strings(_ value: JSONValue?) -> [String]? {
        guard case .array(let items)? = value else { return nil }
        return items.compactMap(\.string)
    }

    @Test func everyTaggingCommandThroughTheGateway() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let client = try stack.client()
        let id = try client.register()
        let device: [String: JSONValue] = ["app_key": "app1".json, "registration_id": id.json]
        func call(_ command: String, _ extra: [String: JSONValue] = [:]) throws -> JSONValue {
            try client.json(command, device.merging(extra) { $1 })
        }
        let added = try call("tags.add", ["tags": .array(["vip".json, "女性".json]), "seq": .number(3)])
        #expect(added.code == 0)
        #expect(added["seq"] == .number(3))
        #expect(strings(try call("tags.set", ["tags": .array(["vip".json, "gold".json])])["tags"]) == ["vip", "gold"])
        #expect(try call("tags.delete", ["tags": .array(["gold".json])]).code == 0)
        #expect(strings(try call("tags.get")["tags"]) == ["vip"])
        #expect(try call("tags.valid", ["tag": "vip".json])["is_bind"] == .bool(true))
        #expect(try call("tags.add", ["tags": .array([String(repeating: "标", count: 14).json])]).code == 6006)
        #expect(try call("alias.set", ["alias": "user_1".json])["alias"] == "user_1".json)
        #expect(try call("alias.get")["alias"] == "user_1".json)
        #expect(strings(try client.json("alias.lookup", ["app_key": "app1".json, "alias": "user_1".json])["registration_ids"]) == [id])
        #expect(strings(try client.json("tags.list", ["app_key": "app1".json])["tags"]) == ["vip"])
        #expect(try client.json("tags.count", ["app_key": "app1".json, "tags": .array(["vip".json])])["counts"] == .object(["vip": .number(1)]))
        #expect(try call("alias.delete")["alias"] == .null)
        #expect(try call("tags.clean")["tags"] == .null)

        #expect(try call("channel.subscribe", ["channel": "match-1".json, "background_push": .bool(true)]).code == 0)
        #expect(try call("channel.status", ["channel": "match-1".json])["subscribed"] == .bool(true))
        #expect(try call("channel.unsubscribe", ["channel": "match-1".json]).code == 0)
        let synced = try call("channel.sync", ["subscriptions": .array([.object(["channel": "news".json])])])
        #expect(synced["subscriptions"] == .array([.object(["channel": "news".json, "background_push": .bool(false)])]))
        #expect(try client.json("audience.resolve", ["app_key": "app1".json, "channel": .array(["news".json])])["registration_ids"]
                == .array([id.json]))
        #expect(try call("channel.reset").code == 0)
        #expect(try call("channel.status", ["channel": "news".json])["subscribed"] == .bool(false))
    }

    @Test func anAudienceCombiningOrAndAndNot() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let client = try stack.client()
        var ids: [String] = []
        let plan: [[String]] = [["vip", "ios"], ["vip", "android"], ["gold", "ios"], ["gold", "ios", "churned"], ["ios"]]
        for tags in plan {
            let id = try client.register()
            #expect(try client.json("tags.add", ["app_key": "app1".json, "registration_id": id.json,
                                                 "tags": .array(tags.map(\.json))]).code == 0)
            ids.append(id)
        }
        let page = try client.json("audience.resolve", [
            "app_key": "app1".json, "tag": .array(["vip".json, "gold".json]), "tag_and": .array(["ios".json]),
            "tag_not": .array(["churned".json]),
        ])
        #expect(page["total"] == .number(2))
        #expect(Set(strings(page["registration_ids"]) ?? []) == [ids[0], ids[2]])
        #expect(page["next_cursor"] == .null)
    }

    @Test func anAudienceByRegistrationIDTakesTheCatalogsListOrOneID() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let client = try stack.client()
        let ids = try (0..<3).map { _ in try client.register() }
        for id in ids {
            #expect(try client.json("tags.add", ["app_key": "app1".json, "registration_id": id.json, "tags": .array(["vip".json])]).code == 0)
        }
        let listed = try client.json("audience.resolve", ["app_key": "app1".json, "registration_id": .array([ids[0].json, ids[2].json])])
        #expect(listed.code == 0, "the catalog's form, a list: \(listed)")
        #expect(Set(strings(listed["registration_ids"]) ?? []) == [ids[0], ids[2]])
        #expect(listed["total"] == .number(2))
        let one = try client.json("audience.resolve", ["app_key": "app1".json, "registration_id": ids[1].json, "tag": .array(["vip".json])])
        #expect(one.code == 0, "one ID reads as a list of one: \(one)")
        #expect(strings(one["registration_ids"]) == [ids[1]])
        let deviceCommand = try client.json("tags.get", ["app_key": "app1".json, "registration_id": .array([ids[0].json])])
        #expect(deviceCommand.code == 6017, "a device command still names one device: \(deviceCommand)")
    }

    @Test func deletingADeviceRemovesItsTagsAndAlias() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let client = try stack.client()
        let id = try client.register()
        let device: [String: JSONValue] = ["app_key": "app1".json, "registration_id": id.json]
        #expect(try client.json("tags.add", device.merging(["tags": .array(["vip".json])]) { $1 }).code == 0)
        #expect(try client.json("alias.set", device.merging(["alias": "owner".json]) { $1 }).code == 0)
        #expect(try client.json("device.delete", device).code == 0)

        // device.deleted travels registration → bus → tagging; wait for its effect, bounded. The
        // device's own proofs are refused from then on, so the app looks.
        let vipCount = { try client.json("tags.count", ["app_key": "app1".json, "tags": .array(["vip".json])])["counts"] }
        #expect(try eventually(30, every: 20_000) { try vipCount() == .object(["vip": .number(0)]) })
        #expect(strings(try client.json("alias.lookup", ["app_key": "app1".json, "alias": "owner".json])["registration_ids"]) == [])
        #expect(try client.json("tags.get", device)["message"] == "device deleted".json)
        #expect(try client.json("alias.get", device).code == 1008)
    }

    @Test func tagsSurviveARestartOfTheService() throws {
        let stack = try TestStack().start(["tagging"])
        let client = try stack.client()
        let device: [String: JSONValue] = ["app_key": "app1".json, "registration_id": "0a0b0c0d0e0f".json]
        #expect(try client.json("tags.add", device.merging(["tags": .array(["kept".json])]) { $1 }).code == 0)
        stack.services["tagging"]?.kill()
        try stack.waitForServiceGone("tagging")
        try stack.startService("tagging")
        #expect(strings(try client.json("tags.get", device)["tags"]) == ["kept"])
    }

    /// A clean stop (SIGTERM) leaves the audience index marked as the database's, so the next start
    /// keeps it; a kill leaves it unmarked, so the next start builds it again. Both find the device.
    @Test func theAudienceIndexIsKeptAfterACleanStopAndBuiltAgainAfterAKill() throws {
        let stack = try TestStack().start(["tagging"])
        let client = try stack.client()
        let device: [String: JSONValue] = ["app_key": "app1".json, "registration_id": "0a0b0c0d0e0f".json]
        #expect(try client.json("tags.add", device.merging(["tags": .array(["vip".json])]) { $1 }).code == 0)
        let built = "audience index built again"
        #expect(stack.services["tagging"]?.output.contains(built) == false, "a new database has nothing to build")

        func restart(_ stop: (RunningProcess) -> Void) throws -> String {
            guard let running = stack.services["tagging"] else { throw StackError("no tagging process") }
            stop(running)
            try stack.waitForServiceGone("tagging")
            try stack.startService("tagging")
            let audience = try client.json("audience.resolve", ["app_key": "app1".json, "tag": .array(["vip".json])])
            #expect(strings(audience["registration_ids"]) == ["0a0b0c0d0e0f"])
            return stack.services["tagging"]?.output ?? ""
        }
        let afterStop = try restart { #expect($0.terminate() == 0, "a clean stop") }
        #expect(!afterStop.contains(built))
        let afterKill = try restart { $0.kill() }
        #expect(afterKill.contains(built))
    }

    /// U+F900 and U+8C48 (its canonical decomposition) name one tag and one alias through the wire,
    /// whichever spelling was sent first.
    @Test func canonicallyEquivalentTagsAndAliasesAreOneName() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let client = try stack.client()
        for (sent, asked) in [("\u{F900}", "\u{8C48}"), ("\u{8C48}", "\u{F900}")] {
            let app = "app" + String(sent.unicodeScalars.first!.value, radix: 16)
            let id = try client.register(appKey: app)
            let device: [String: JSONValue] = ["app_key": app.json, "registration_id": id.json]
            #expect(try client.json("tags.add", device.merging(["tags": .array([sent.json])]) { $1 }).code == 0)
            #expect(try client.json("alias.set", device.merging(["alias": sent.json]) { $1 }).code == 0)

            let count = try client.json("tags.count", ["app_key": app.json, "tags": .array([asked.json])])
            #expect(count["counts"] == .object(["\u{8C48}": .number(1)]), "\(count)")
            #expect(strings(try client.json("alias.lookup", ["app_key": app.json, "alias": asked.json])["registration_ids"]) == [id])
            #expect(strings(try client.json("audience.resolve", ["app_key": app.json, "tag": .array([asked.json])])["registration_ids"]) == [id])
            #expect(try client.json("tags.valid", device.merging(["tag": asked.json]) { $1 })["is_bind"] == .bool(true))
        }
    }
}
