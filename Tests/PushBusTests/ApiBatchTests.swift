import Foundation
import JSON
import Testing

/// Batch pushes (`/v4/batch/push/*`, `/v3/push/batch/*/single`) through the real api, push and apns
/// processes, the APNs stand-in behind them: one result per entry, in the entries' order, and one
/// unit of the app's quota per push.
@Suite("REST API batch pushes (integration)", .serialized)
struct ApiBatchTests {
    /// A v4 batch body: one iOS alert per target, saying its place ("entry 0", …).
    static func requests(_ targets: [String]) -> JSONValue {
        .object(["requests": .array(targets.enumerated().map { index, target in
            .object(["target": .string(target), "platform": "ios".json,
                     "notification": .object(["ios": .object(["alert": .string("entry \(index)")])])])
        })])
    }

    /// A v3 batch body's JSON text: one iOS alert per cid, in the order given (a JSONValue would be
    /// written with sorted keys, and a key only once).
    static func pushlist(_ entries: [(cid: String, target: String)]) -> String {
        let members = entries.map { entry in
            "\"\(entry.cid)\":{\"platform\":\"ios\",\"target\":\"\(entry.target)\",\"notification\":{\"ios\":{\"alert\":\"\(entry.cid)\"}}}"
        }
        return "{\"pushlist\":{\(members.joined(separator: ","))}}"
    }

    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// The alerts the stand-in received for the device of `token`.
    static func alerts(_ push: PushStack, _ token: String) throws -> [String] {
        try push.apns.requests().filter { $0["token"]?.string == token }.compactMap { $0["payload"]?["aps"]?["alert"]?.string }
    }

    @Test func everyEntryHasItsOwnResultInItsPlaceEvenWhenEntriesShareATarget() throws {
        let push = try PushStack(appKey: "batchapp")
        let api = try ApiServer(stack: push.stack, extra: ["--app-quota", "0"])
        let (a, b) = (try push.device(Self.token(0xB1)), try push.device(Self.token(0xB2)))
        try push.waitUntilKnown([a, b])

        let targets = [a, a, b, a]
        let answer = try api.send("POST", "/v4/batch/push/regid", Self.requests(targets), authorization: api.basic("batchapp"))
        #expect(answer.status == 200, "\(answer.body)")
        let ordered = answer.body["ordered_results"]?.items ?? []
        #expect(ordered.map { $0["target"]?.string } == targets, "\(answer.body)")
        #expect(ordered.allSatisfy { $0["success"] == .bool(true) }, "\(answer.body)")
        let ids = ordered.compactMap { $0["msg_id"]?.string }
        #expect(ids.count == 4 && Set(ids).count == 4, "one message per entry: \(ids)")
        // `results` by target, as EngageLab's SDK reads it: the first entry of a target under the
        // target, a later one under `target#place`.
        guard case .object(let byTarget)? = answer.body["results"] else {
            Issue.record("results is not an object: \(answer.body)")
            return
        }
        #expect(Set(byTarget.dictionary.keys) == [a, "\(a)#1", b, "\(a)#3"], "\(answer.body)")
        #expect(byTarget[a] == ordered.first && byTarget["\(a)#3"] == ordered.last)
        for id in ids { _ = try push.waitUntilDone(id) }
        #expect(try Self.alerts(push, Self.token(0xB1)).sorted() == ["entry 0", "entry 1", "entry 3"])
        #expect(try Self.alerts(push, Self.token(0xB2)) == ["entry 2"])

        // JPush v3: one result per cid, three cids to one registration ID are three messages.
        let v3 = try api.send("POST", "/v3/push/batch/regid/single", text: Self.pushlist([("c-1", a), ("c-2", a), ("c-3", a)]),
                              authorization: api.basic("batchapp"))
        #expect(v3.status == 200, "\(v3.body)")
        let v3IDs = ["c-1", "c-2", "c-3"].compactMap { v3.body[$0]?["msg_id"] }
        #expect(v3IDs.count == 3 && Set(v3IDs).count == 3, "\(v3.body)")

        // A cid given twice in one pushlist is refused before anything is sent.
        let twice = try api.send("POST", "/v3/push/batch/regid/single", text: Self.pushlist([("c-4", a), ("c-4", b)]),
                                 authorization: api.basic("batchapp"))
        #expect(twice.status == 400 && twice.body["error"]?["code"]?.number == 1003, "\(twice.body)")
    }

    /// Every kind a push body may carry goes through a batch as through a single push: an in-app
    /// message in a batch reaches the device channel (stored for the device: `sent`).
    @Test func anInAppMessageInABatchIsDelivered() throws {
        let push = try PushStack(appKey: "batchapp")
        try push.stack.startService("channel", extra: ["--listen", "127.0.0.1:\(Ports.free())"])
        let api = try ApiServer(stack: push.stack, extra: ["--app-quota", "0"])
        let device = try push.device(Self.token(0xB7))
        try push.waitUntilKnown([device])
        let body: JSONValue = .object(["requests": .array([.object([
            "target": .string(device), "platform": "ios".json,
            "inapp_message": .object(["type": "banner".json, "title": "Hi".json, "content": "In a batch".json, "target": .array(["home".json])]),
        ])])])
        let answer = try api.send("POST", "/v4/batch/push/regid", body, authorization: api.basic("batchapp"))
        let result = answer.body["ordered_results"]?.items?.first
        #expect(answer.status == 200 && result?["success"] == .bool(true), "\(answer.body)")
        let msgID = try #require(result?["msg_id"]?.string, "\(answer.body)")
        let status = try push.waitUntilDone(msgID)
        #expect(status["sent"]?.number == 1, "the channel took the in-app message for the device: \(status)")
    }

    @Test func aBatchCostsOneUnitOfTheQuotaPerPushAndEntriesPastItAreRefused() throws {
        let push = try PushStack(appKey: "quotaapp")
        let api = try ApiServer(stack: push.stack, extra: ["--app-quota", "5", "--quota-window-s", "3600"])
        let a = try push.device(Self.token(0xB3))
        try push.waitUntilKnown([a])

        let answer = try api.send("POST", "/v4/batch/push/regid", Self.requests(Array(repeating: a, count: 8)),
                                  authorization: api.basic("quotaapp"))
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.headers["x-rate-limit-remaining"] == "0", "\(answer.headers)")
        let ordered = answer.body["ordered_results"]?.items ?? []
        #expect(ordered.count == 8, "\(answer.body)")
        #expect(ordered.prefix(5).allSatisfy { $0["success"] == .bool(true) }, "\(answer.body)")
        #expect(ordered.dropFirst(5).allSatisfy { $0["success"] == .bool(false) && $0["error"]?["code"]?.number == 2002 }, "\(answer.body)")
        #expect(answer.body["rate_limit_info"]?["rate_limit_occurred"] == .bool(true), "\(answer.body)")
        let next = try api.send("GET", "/v4/tags", authorization: api.basic("quotaapp"))
        #expect(next.status == 429 && next.body["error"]?["code"]?.number == 2002, "the window is spent: \(next.body)")
        for id in ordered.compactMap({ $0["msg_id"]?.string }) { _ = try push.waitUntilDone(id) }
        #expect(try Self.alerts(push, Self.token(0xB3)).sorted() == (0..<5).map { "entry \($0)" }, "five pushes, no more")

        // JPush v3 on an api of its own: three units, four cids; the last one given is refused, nothing else.
        let small = try ApiServer(stack: push.stack, extra: ["--app-quota", "3", "--quota-window-s", "3600"])
        let v3 = try small.send("POST", "/v3/push/batch/regid/single", text: Self.pushlist((1...4).reversed().map { ("q-\($0)", a) }),
                                authorization: small.basic("quotaapp"))
        #expect(v3.status == 200, "\(v3.body)")
        #expect((2...4).allSatisfy { v3.body["q-\($0)"]?["msg_id"] != nil }, "\(v3.body)")
        #expect(v3.body["q-1"]?["error"]?["code"]?.number == 2002, "\(v3.body)")
        #expect(v3.headers["x-rate-limit-remaining"] == "0", "\(v3.headers)")
    }

    @Test func entriesAfterOneTheBusDoesNotAnswerAreNotSentRatherThanEachWaiting() throws {
        let push = try PushStack(appKey: "stallapp")
        let api = try ApiServer(stack: push.stack, extra: ["--app-quota", "0"])
        let a = try push.device(Self.token(0xB4))
        try push.waitUntilKnown([a])
        push.stack.services["push"]?.kill()
        try push.stack.waitForServiceGone("push")

        let started = Date()
        let answer = try api.send("POST", "/v4/batch/push/regid", Self.requests(Array(repeating: a, count: 5)), authorization: api.basic("stallapp"))
        let took = Date().timeIntervalSince(started)
        #expect(answer.status == 200, "\(answer.body)")
        let ordered = answer.body["ordered_results"]?.items ?? []
        #expect(ordered.count == 5 && ordered.allSatisfy { $0["error"]?["code"]?.number == 6002 }, "\(answer.body)")
        #expect(ordered.dropFirst().allSatisfy { $0["error"]?["message"]?.string?.hasPrefix("not sent") == true }, "\(answer.body)")
        #expect(took < 4, "one wait for the gateway's 2-s deadline, not five: \(took) s")
    }
}

extension JSONValue {
    /// The items of an array (nil when it is not one).
    var items: [JSONValue]? {
        guard case .array(let items) = self else { return nil }
        return items
    }
}
