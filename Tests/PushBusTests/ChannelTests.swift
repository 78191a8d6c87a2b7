import Foundation
import JSON
import Schema
import Testing

/// The device channel through the real executables: gateway, registration, tagging, badge,
/// analytics, push, apns (at the APNs stand-in), a `channel` process and the REST API. Devices are
/// Python's `websockets` (Tests/channel/device_check.py), which shares no code with the server; the
/// app server pushes through the REST API.
@Suite("Device channel (integration)", .serialized)
struct ChannelTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("channel/device_check.py").path

    /// The stack, its channel's port, and a config naming devices `a`, `b` and `gone` (deleted).
    final class Setup: @unchecked Sendable {
        let push: PushStack
        let api: ApiServer
        let port: Int
        let channelFlags: [String]
        let ids: [String: String]
        let configPath: String

        init(flooders: Int = 0) throws {
            push = try PushStack(appKey: "liveapp")
            port = Ports.free()
            channelFlags = ["--listen", "127.0.0.1:\(port)", "--ping-interval", "1", "--pong-timeout", "1", "--hello-timeout", "2",
                            "--frames-per-second", "50", "--max-queued-bytes", "65536"]
            try push.stack.startService("channel", extra: channelFlags)
            api = try ApiServer(stack: push.stack, extra: ["--app-quota", "0"])
            var ids: [String: String] = [:]
            for (name, token) in [("a", 0xC1), ("b", 0xC2), ("gone", 0xC3)] { ids[name] = try push.device(String(format: "%064x", token)) }
            for n in 0..<flooders { ids["f\(n)"] = try push.device(String(format: "%064x", 0xF000 + n)) }
            self.ids = ids
            _ = try push.call("device.delete", ["app_key": .string("liveapp"), "registration_id": .string(ids["gone"]!)])
            let secrets = push.stack.secrets
            let devices = ids.mapValues { id -> JSONValue in
                .object(["rid": .string(id), "secret": .string(secrets.deviceSecret(appKey: "liveapp", registrationID: id))])
            }
            let config: JSONValue = .object([
                "ws": .string("ws://127.0.0.1:\(port)/v1/channel"), "api": .string(api.base), "app_key": "liveapp".json,
                "master_secret": .string(secrets.masterSecret(appKey: "liveapp")), "devices": .object(JSONObject(devices)),
                "flooders": .array((0..<flooders).map { .string("f\($0)") }),
            ])
            configPath = push.stack.dataDirectory + "/channel-config.json"
            try JSONEncoder().encode(config).write(to: URL(fileURLWithPath: configPath))
        }

        /// A value a scenario printed as a JSON line `{"key": value}`.
        static func printed(_ key: String, in output: String) -> String? {
            output.split(separator: "\n").lazy.compactMap { line in
                (try? JSONTreeDecoder().decode(JSONValue.self, from: Data(line.utf8)))?[key]?.string
            }.first
        }

        /// Runs scenarios of the script; their output, after checking it passed.
        @discardableResult
        func run(_ scenarios: [String]) throws -> String {
            let python = try RunningProcess("/usr/bin/env", ["python3", ChannelTests.script, configPath] + scenarios,
                                            logDirectory: push.stack.logDirectory)
            let status = python.waitForExit(120)
            let output = python.output
            #expect(status == 0, "\(output)\nchannel log:\n\(push.stack.services["channel"]?.output.suffix(4000) ?? "")")
            return output
        }
    }

    @Test func messagesReachConnectedAndReturningDevicesInOrderOnceUnlessExpired() throws {
        let setup = try Setup()
        try setup.run(["live", "offline", "ttl_zero", "status", "replace"])
    }

    @Test func inAppMessagesShowOnTheirPagesOnceAndCountShowsAndClicks() throws {
        let setup = try Setup()
        let output = try setup.run(["inapp"])
        let msgID = try #require(Setup.printed("inapp_msg_id", in: output))
        var counts: JSONValue?
        let counted = try eventually(10) {
            counts = try setup.push.call("stats.message", ["app_key": "liveapp".json, "msg_ids": .array([.string(msgID)])])["messages"]?[msgID]
            return counts?["inapp_show"]?.number == 1 && counts?["inapp_click"]?.number == 1 && counts?["received"]?.number == 1
        }
        #expect(counted, "stats.message: \(String(describing: counts))")
    }

    @Test func aReminderReachesADeviceWithNotificationsOffOverTheChannelAndTheOtherThroughAPNs() throws {
        let setup = try Setup()
        let output = try setup.run(["reminder"])
        let msgID = try #require(Setup.printed("reminder_msg_id", in: output))
        _ = try setup.push.waitUntilDone(msgID)
        let tokens = try setup.push.received(msgID).compactMap { $0["token"]?.string }
        #expect(tokens == [String(format: "%064x", 0xC2)], "APNs got \(tokens): only b, whose notifications are on")
    }

    @Test func forgedStaleReplayedAndDeletedHellosAreRefusedWithTheirCodes() throws {
        let setup = try Setup()
        try setup.run(["refusals"])
    }

    @Test func aFloodOfReportsIsRefusedAndHoldsUpNoOtherDevice() throws {
        let setup = try Setup(flooders: 30)
        try setup.run(["report_flood"])
    }

    @Test func hostileConnectionsAreClosedWithACodeAndOthersKeepBeingServed() throws {
        let setup = try Setup()
        try setup.run(["bad_input", "heartbeat", "drain", "live"])
        let log = setup.push.stack.services["channel"]?.output ?? ""
        for reason in [#"code=1008 reason="slow reader""#, #"code=1008 reason="too many frames""#, "code=1009", "code=1003"] {
            #expect(log.contains(reason), "the channel never closed a connection with \(reason)")
        }
    }

    /// Two channel processes, shards 0 and 1, each on a port of its own here (in production they
    /// share one), so a device can be sent to the process that does not own its mailbox.
    @Test func aDevicesMessagesReachItWhicheverChannelProcessHoldsItsConnection() throws {
        let push = try PushStack(appKey: "liveapp", gatewayFlags: ["--shards", "channel=2"])
        let ports = [Ports.free(), Ports.free()]
        let processes = try (0..<2).map { shard in
            try RunningProcess(TestPaths.executable("channel"),
                               ["--endpoint", push.stack.endpoint, "--events-in", push.stack.eventsIn, "--events-out", push.stack.eventsOut,
                                "--data-dir", push.stack.dataDirectory, "--heartbeat-ms", "200", "--parent-pid", String(getpid()),
                                "--shard-index", String(shard), "--shard-count", "2", "--listen", "127.0.0.1:\(ports[shard])"],
                               logDirectory: push.stack.logDirectory)
        }
        try push.stack.waitForService("channel")
        let api = try ApiServer(stack: push.stack, extra: ["--app-quota", "0"])
        // Devices until each shard owns one.
        var devices: [String: JSONValue] = [:]
        var token = 0xD0
        while devices.count < 2 {
            token += 1
            let id = try push.device(String(format: "%064x", token))
            let shard = ShardHash.shard(of: id, count: 2)
            let name = shard == 0 ? "a" : "b"
            guard devices[name] == nil else { continue }
            devices[name] = .object(["rid": .string(id), "shard": .number(Double(shard)),
                                     "secret": .string(push.stack.secrets.deviceSecret(appKey: "liveapp", registrationID: id))])
        }
        let config: JSONValue = .object([
            "ws": .string("ws://127.0.0.1:\(ports[0])/v1/channel"), "api": .string(api.base), "app_key": "liveapp".json,
            "master_secret": .string(push.stack.secrets.masterSecret(appKey: "liveapp")), "devices": .object(JSONObject(devices)),
            "ws_by_shard": .array(ports.map { .string("ws://127.0.0.1:\($0)/v1/channel") }),
        ])
        let path = push.stack.dataDirectory + "/channel-config.json"
        try JSONEncoder().encode(config).write(to: URL(fileURLWithPath: path))
        let python = try RunningProcess("/usr/bin/env", ["python3", Self.script, path, "across_processes"], logDirectory: push.stack.logDirectory)
        #expect(python.waitForExit(120) == 0, "\(python.output)\nchannel 0:\n\(processes[0].output.suffix(3000))\nchannel 1:\n\(processes[1].output.suffix(3000))")
    }

    @Test func aChannelKilledAndRestartedLosesNoUnacknowledgedMessage() throws {
        let setup = try Setup()
        try setup.run(["queue_for_restart"])
        // b is connected when the process dies: no detach ever reaches its shard.
        let holder = try RunningProcess("/usr/bin/env", ["python3", Self.script, setup.configPath, "hold"], logDirectory: setup.push.stack.logDirectory)
        try #require(try eventually(10) { holder.output.contains("holding") }, "b never connected before the kill: \(holder.output)")
        setup.push.stack.services["channel"]?.kill()
        // Restarted at once, before the gateway has given up on the dead worker.
        try setup.push.stack.startService("channel", extra: setup.channelFlags)
        try setup.run(["after_restart", "offline_after_restart"])
        holder.kill()
    }
}
