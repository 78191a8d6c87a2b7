import Foundation
import JSON
import Testing

/// The REST API driven by the official server SDKs from PyPI, unmodified (Tests/api/sdk_check.py):
/// EngageLab's `engagelab-apppush` and JPush's `jpush`, against the real stack, the APNs stand-in
/// behind it. Devices register over the bus; everything else goes through the SDKs.
@Suite("REST API with the official SDKs (integration)", .serialized)
struct ApiSDKTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("api/sdk_check.py").path

    @Test func bothSDKsDriveEveryEndpointTheyExpose() throws {
        let push = try PushStack(appKey: "sdkapp", services: ["registration", "tagging", "badge", "analytics", "scheduler"])
        let maxBody = 64 << 10
        let api = try ApiServer(stack: push.stack, extra: ["--app-quota", "0", "--max-body-bytes", String(maxBody)])
        let quota = 5
        let limited = try ApiServer(stack: push.stack, extra: ["--app-quota", String(quota), "--quota-window-s", "3600"])
        let devices = try (1...3).map { try push.device(String(format: "%064x", 0xA0 + $0)) }
        let config: JSONValue = .object([
            "base": .string(api.base), "limited": .string(limited.base), "quota": .number(Double(quota)), "max_body": .number(Double(maxBody)),
            "app_key": "sdkapp".json, "secret": .string(push.stack.secrets.masterSecret(appKey: "sdkapp")),
            "other_key": "otherapp".json, "other_secret": .string(push.stack.secrets.masterSecret(appKey: "otherapp")),
            "devices": .array(devices.map(JSONValue.string)), "admin": .string(push.stack.secrets.admin),
            "team_id": .string(ApnsStandIn.teamID), "key_id": .string(ApnsStandIn.keyID), "bundle_id": .string(ApnsStandIn.bundleID),
            "p8": .string(push.apns.p8),
        ])
        let configPath = push.stack.dataDirectory + "/sdk-config.json"
        try JSONEncoder().encode(config).write(to: URL(fileURLWithPath: configPath))

        let python = try RunningProcess("/usr/bin/env", ["python3", Self.script, configPath], logDirectory: push.stack.logDirectory)
        let status = python.waitForExit(240)
        #expect(status == 0, "\(python.output)\napi log:\n\(api.process.output.suffix(4000))")

        // What the SDKs pushed reached the stand-in: the tag push to r2 and r3, the alias push to r1.
        let requests = try push.apns.requests()
        func alerts(_ token: Int) -> [String] {
            requests.filter { $0["token"]?.string == String(format: "%064x", token) }
                .compactMap { $0["payload"]?["aps"]?["alert"]?.string ?? $0["payload"]?["aps"]?["alert"]?["body"]?.string }
        }
        #expect(alerts(0xA2).contains("gold") && alerts(0xA3).contains("gold") && !alerts(0xA1).contains("gold"), "\(requests.count) requests")
        #expect(alerts(0xA1).contains("alice"))
        #expect(alerts(0xA2).contains("hello jp"))
    }
}
