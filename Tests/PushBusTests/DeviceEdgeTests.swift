import Foundation
import JSON
import Schema
import Testing

/// The device edge (`POST /v1/device/<command>` on api) and requests on the device channel, driven
/// by a phone written in Python with nothing but http.client, pyzmq and websockets
/// (Tests/edge/edge_check.py), against the real gateway, services, api and channel processes.
@Suite("device edge (integration)", .serialized)
struct DeviceEdgeTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("edge/edge_check.py").path

    /// A stack with every service a phone uses, the channel on a port of its own, and an app.
    final class Setup: @unchecked Sendable {
        let stack: TestStack
        let channelPort = Ports.free()
        let appKey = "edgeapp"

        init(gatewayFlags: [String] = [], channelFlags: [String] = []) throws {
            stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "5000"] + gatewayFlags)
            try stack.start(["registration", "tagging", "badge", "scheduler", "analytics"])
            try stack.startService("channel", extra: ["--listen", "127.0.0.1:\(channelPort)"] + channelFlags)
            _ = try stack.client().json("app.create", ["name": .string(appKey), "app_key": .string(appKey)])
        }

        /// Runs the phone's `phase` against `edge` (and `channel`), returning its exit status and output.
        func phone(_ phase: String, edge: String, ca: String? = nil, channel: String? = nil) throws -> (status: Int32, output: String) {
            let config: JSONValue = .object([
                "edge": .string(edge), "ca": ca.map(JSONValue.string) ?? .null, "bus": .string(stack.endpoint), "app_key": .string(appKey),
                "channel": .string(channel ?? "ws://127.0.0.1:\(channelPort)/v1/channel"), "second_address": "127.0.0.2".json,
                "master_secret": .string(stack.secrets.masterSecret(appKey: appKey)),
            ])
            let path = stack.dataDirectory + "/edge-\(phase).json"
            try WireCodec.encode(config).write(to: URL(fileURLWithPath: path))
            let python = try RunningProcess("/usr/bin/env", ["python3", DeviceEdgeTests.script, path, phase], logDirectory: stack.logDirectory)
            let status = python.waitForExit(180) ?? -1
            return (status, python.output)
        }
    }

    @Test("every device command over HTTP: the bus's replies, its codes, forged, replayed and deleted proofs refused, the edge's own refusals")
    func everyCommandAsOnTheBus() throws {
        let setup = try Setup()
        let api = try ApiServer(stack: setup.stack)
        let run = try setup.phone("flow", edge: api.base)
        #expect(run.status == 0, "\(run.output)\napi log:\n\(api.process.output.suffix(3000))")
    }

    @Test("a flood of unsigned registrations from one address gets 429 while another address registers; the gateway does not lump the edge's phones")
    func registrationFloodIsLimitedPerAddress() throws {
        // The gateway's own limit is tight: without --edge-peers every phone behind the edge would share it.
        let setup = try Setup(gatewayFlags: ["--register-rate", "1", "--register-burst", "10", "--edge-peers", "127.0.0.1"])
        let api = try ApiServer(stack: setup.stack, extra: ["--register-rate", "5", "--register-burst", "20"])
        let run = try setup.phone("flood", edge: api.base)
        #expect(run.status == 0, "\(run.output)\napi log:\n\(api.process.output.suffix(3000))")
        // What got through is what the edge's limit lets through from one address: the burst and
        // five a second over the flood's five seconds (and a little for its end), never the flood.
        guard let line = run.output.split(separator: "\n").first(where: { $0.contains("\"flood\"") }),
              let summary = try? JSONTreeDecoder().decode(JSONValue.self, from: Data(line.utf8)),
              let accepted = summary["flood"]?["ok"]?.number else {
            Issue.record("no summary: \(run.output)")
            return
        }
        #expect(accepted <= 20 + 5 * 7, "\(accepted) registrations from one address passed")
    }

    @Test("without --edge-peers the gateway limits the edge as one address: the bystander is refused by the gateway (the test above fails for its reason)")
    func withoutEdgePeersTheGatewayLumpsPhones() throws {
        let setup = try Setup(gatewayFlags: ["--register-rate", "1", "--register-burst", "10"])
        let api = try ApiServer(stack: setup.stack, extra: ["--register-rate", "5", "--register-burst", "20"])
        let run = try setup.phone("flood", edge: api.base)
        #expect(run.status == 1 && run.output.contains("the other address was not served"), "\(run.output)")
    }

    @Test("the gateway stopped: 503 with 6002; once it is back, the next request succeeds")
    func gatewayDownIs503ThenRecovers() throws {
        let setup = try Setup()
        let api = try ApiServer(stack: setup.stack, extra: ["--request-timeout-ms", "1500"])
        setup.stack.gateway?.kill()
        _ = setup.stack.gateway?.waitForExit(10)
        let down = try setup.phone("down", edge: api.base)
        #expect(down.output.contains(#""status": 503"#) && down.output.contains(#""code": 6002"#), "\(down.output)")
        try setup.stack.startGateway()
        try setup.stack.waitForService("registration")
        let back = try setup.phone("down", edge: api.base)
        #expect(back.output.contains(#""status": 200"#) && back.output.contains(#""code": 0"#), "\(back.output)")
    }

    @Test("requests on an open channel connection, answered with their ids; refused ones with a code")
    func requestsOverTheChannel() throws {
        let setup = try Setup()
        let api = try ApiServer(stack: setup.stack)
        let run = try setup.phone("channel", edge: api.base)
        #expect(run.status == 0, "\(run.output)\nchannel log:\n\(setup.stack.services["channel"]?.output.suffix(3000) ?? "")")
    }

    @Test("over TLS: the whole flow over HTTPS with a test CA, and the channel over wss")
    func overTLS() throws {
        let directory = TestPaths.temporaryDirectory("edge-tls")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (ca, certificate, key) = try TestCertificates.make(in: directory)
        let setup = try Setup(channelFlags: ["--tls-cert", certificate, "--tls-key", key])
        let port = Ports.free()
        let api = try RunningProcess(TestPaths.executable("api"),
                                     ["--endpoint", setup.stack.endpoint, "--data-dir", setup.stack.dataDirectory, "--listen", "127.0.0.1:\(port)",
                                      "--tls-cert", certificate, "--tls-key", key, "--parent-pid", String(getpid())],
                                     logDirectory: setup.stack.logDirectory)
        defer { api.kill() }
        #expect(eventually(20) { (try? LoopbackSocket.connect(port: port)).map { close($0); return true } ?? false })
        let flow = try setup.phone("flow", edge: "https://localhost:\(port)", ca: ca)
        #expect(flow.status == 0, "\(flow.output)\napi log:\n\(api.output.suffix(3000))")
        let channel = try setup.phone("channel", edge: "https://localhost:\(port)", ca: ca, channel: "wss://localhost:\(setup.channelPort)/v1/channel")
        #expect(channel.status == 0, "\(channel.output)\nchannel log:\n\(setup.stack.services["channel"]?.output.suffix(3000) ?? "")")
    }
}

/// A throwaway CA and a certificate it signed for localhost and 127.0.0.1, by the openssl command.
enum TestCertificates {
    static func make(in directory: String) throws -> (ca: String, certificate: String, key: String) {
        let script = """
        set -e
        cd '\(directory)'
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt -days 2 -subj '/CN=PushBus test CA' 2>/dev/null
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr -subj '/CN=localhost' 2>/dev/null
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\nextendedKeyUsage=serverAuth\\n' > server.ext
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile server.ext 2>/dev/null
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw StackError("openssl could not make the test certificates") }
        return (directory + "/ca.crt", directory + "/server.crt", directory + "/server.key")
    }
}
