import Client
import Foundation
import JSON
import Testing

/// Push statistics through the real executables (gateway, registration, tagging, badge, analytics,
/// push, apns and the APNs stand-in): a message's `received` and `opened` count only the devices it
/// was sent to, whoever else reports it.
@Suite("PushStats: only a message's targets count", .serialized)
struct PushStatsTargetsTests {
    @Test("30 self-registered devices reporting a message sent to 2 leave its received and opened at 2")
    func onlyTargetsCount() throws {
        let push = try PushStack()
        // The devices' own client: it knows the app_key and the device secrets its registrations hand back, nothing more.
        let phones = try MajordomoClient(endpoint: push.stack.endpoint, context: push.stack.context, timeoutMilliseconds: 10_000)
        phones.signer = Signer()
        func register(_ installation: String, token: String? = nil) throws -> String {
            var payload: [String: JSONValue] = ["app_key": .string(push.appKey), "platform": "ios".json, "device_id": .string(installation)]
            if let token { payload["apns_token"] = .string(token) }
            let reply = try phones.json("device.register", payload)
            return try #require(reply["registration_id"]?.string, "\(reply)")
        }
        let targets = try (0..<2).map { try register("target-\($0)", token: PushIntegrationTests.token(300 + $0)) }
        let others = try (0..<30).map { try register("other-\($0)") }
        try push.waitUntilKnown(targets)
        let msgID = try #require(try push.push(to: .object(["registration_id": .array(targets.map(JSONValue.string))]))["msg_id"]?.string)
        #expect(try push.waitUntilDone(msgID)["sent"]?.number == 2)

        // Every device reports, each signed as itself, the targets last: the verifier takes reports
        // oldest first, so once the targets' reports count, the 60 before them have been judged.
        for device in others + targets {
            for kind in ["received", "opened"] {
                let reply = try phones.json("stats.report", ["app_key": .string(push.appKey), "registration_id": .string(device),
                                                             "kind": .string(kind), "msg_id": .string(msgID)])
                #expect(reply.code == 0, "a report is taken whoever sends it: \(reply)")
            }
        }
        /// stats.message's received and opened, then push.status's.
        func counts() throws -> [Double?] {
            let stats = try push.call("stats.message", ["app_key": .string(push.appKey), "msg_ids": .array([.string(msgID)])])["messages"]?[msgID]
            let status = try push.status(msgID)
            return [stats?["received"]?.number, stats?["opened"]?.number, status?["received"]?.number, status?["opened"]?.number]
        }
        var seen: [Double?] = []
        _ = try eventually(15, every: 100_000) {
            seen = try counts()
            return seen.allSatisfy { ($0 ?? 0) >= 2 }
        }
        let analytics = push.stack.services["analytics"]?.output.suffix(3000) ?? ""
        #expect(seen == [2, 2, 2, 2], "stats.message received, opened; push.status received, opened\nanalytics:\n\(analytics)")
        // And they stay there, many verifier passes later.
        let until = Date().addingTimeInterval(3)
        while Date() < until && seen == [2, 2, 2, 2] {
            usleep(250_000)
            seen = try counts()
        }
        #expect(seen == [2, 2, 2, 2], "the counts stay at the targets'")
    }
}
