import Client
import Credentials
import JSON
import Majordomo
import Foundation
import Schema
import Testing
import Worker
import ZeroMQ

/// A real gateway and real service executables on ephemeral ports with a temporary data directory.
/// `start()` returns once every service answers `mmi.service` with 200.
final class TestStack: @unchecked Sendable {
    let requestPort = Ports.free()
    let eventsInPort = Ports.free()
    let eventsOutPort = Ports.free()
    let metricsPort = Ports.free()
    let dataDirectory: String
    /// Where the processes' output goes: the data directory, or a directory beside it when the test
    /// names a data directory of its own, for the stack alone to create and fill.
    let logDirectory: String
    let context: Context
    /// The gateway's CURVE public key, when the test runs it with encryption.
    var serverKey: String?
    var gateway: RunningProcess?
    var services: [String: RunningProcess] = [:]
    let gatewayArguments: [String]

    var endpoint: String { "tcp://127.0.0.1:\(requestPort)" }
    var eventsIn: String { "tcp://127.0.0.1:\(eventsInPort)" }
    var eventsOut: String { "tcp://127.0.0.1:\(eventsOutPort)" }

    /// `gatewayArguments` adds to the gateway's flags (a short request timeout, say); `dataDirectory`,
    /// when given, is left for the processes to create.
    init(gatewayArguments: [String] = ["--heartbeat-ms", "200", "--request-timeout-ms", "2000"], dataDirectory: String? = nil) throws {
        context = try Context()
        self.gatewayArguments = gatewayArguments
        self.dataDirectory = dataDirectory ?? TestPaths.temporaryDirectory("stack")
        logDirectory = dataDirectory == nil ? self.dataDirectory : TestPaths.temporaryDirectory("stack-logs")
    }

    /// The deployment's secrets in the stack's data directory (made by whoever starts first).
    lazy var secrets: Secrets = try! Secrets.load(directory: dataDirectory)

    /// A signer on the operator's side: admin, any app, any device.
    func signer() -> Signer { Signer(secrets: secrets) }

    /// A stack whose gateway requires CURVE (requests and the bus), with `services` started as its
    /// clients; `serverKey` holds the gateway's public key.
    static func curved(_ services: [String]) throws -> TestStack {
        let keys = try CurveKeys.generate()
        let keyFile = TestPaths.temporaryDirectory("curve") + "/curve.secret"
        try keys.secretKey.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--curve-secret-file", keyFile])
        stack.serverKey = keys.publicKey
        try stack.startGateway()
        for name in services { try stack.startService(name, extra: ["--curve-server-key", keys.publicKey]) }
        return stack
    }

    /// A raw DEALER connected to the request endpoint, speaking MDP by hand.
    func dealer() throws -> Socket {
        let socket = try Socket.dealer(context, connect: endpoint)
        return socket
    }

    /// Makes `socket` a worker of `service` as PushBus's workers become one: asks the gateway for a
    /// challenge, then says READY with the credential the deployment's server.key gives, signed
    /// over it. Returns the READY it sent.
    @discardableResult
    func admit(_ socket: Socket, as service: String, credit: Int) throws -> Message {
        let ready = WorkerMessage.ready(service: service, credit: credit, credential: try credential(socket, service, credit)).frames
        try socket.send(ready)
        return ready
    }

    /// The two credential frames of a READY for `service`, over a challenge the gateway gives `socket`.
    func credential(_ socket: Socket, _ service: String, _ credit: Int, secrets: Secrets? = nil) throws -> [Data] {
        try socket.send(ClientMessage(service: MDP.challengeService, body: [Data()]).frames)
        var poller = Poller([socket])
        guard try poller.poll(timeout: 5000).contains(socket), let message = try socket.receive(),
              let challenge = try ClientMessage(frames: message.frames[...]).body.first else {
            throw StackError("the gateway gave no challenge")
        }
        let made = WorkerCredential(service: service, credit: credit, challenge: String(decoding: challenge, as: UTF8.self),
                                    secrets: secrets ?? self.secrets)
        return [made.stamp, made.proof]
    }

    /// A device command as a DEALER sends it, signed: `["", "MDPC01", "device", command, payload, proof]`.
    func signed(_ command: String, _ payload: String) -> Message {
        Message([Data(), MDP.client, Data("device".utf8)] + signer().sign(command: command, payload: Data(payload.utf8)))
    }

    deinit {
        for service in services.values { service.kill() }
        gateway?.kill()
        try? FileManager.default.removeItem(atPath: dataDirectory)
        try? FileManager.default.removeItem(atPath: logDirectory)
    }

    @discardableResult
    func start(_ serviceNames: [String] = ["registration"]) throws -> Self {
        try startGateway()
        for name in serviceNames { try startService(name) }
        return self
    }

    func startGateway() throws {
        gateway = try RunningProcess(TestPaths.executable("gateway"),
                                     ["--endpoint", endpoint, "--events-in", eventsIn, "--events-out", eventsOut,
                                      "--data-dir", dataDirectory, "--metrics", "127.0.0.1:\(metricsPort)",
                                      "--parent-pid", String(getpid())] + gatewayArguments,
                                     logDirectory: logDirectory)
    }

    /// Options for a worker run inside the test process against this stack.
    func workerOptions() -> WorkerOptions {
        WorkerOptions {
            $0.endpoint = endpoint
            $0.eventsIn = eventsIn
            $0.eventsOut = eventsOut
            $0.dataDirectory = dataDirectory
            $0.heartbeatMilliseconds = 200
            $0.credit = 8
        }
    }

    /// Starts a service and waits until the gateway routes to it.
    func startService(_ name: String, extra: [String] = []) throws {
        services[name] = try RunningProcess(TestPaths.executable(name),
                                            ["--endpoint", endpoint, "--events-in", eventsIn, "--events-out", eventsOut, "--data-dir", dataDirectory,
                                             "--heartbeat-ms", "200", "--parent-pid", String(getpid())] + extra,
                                            logDirectory: logDirectory)
        try waitForService(name)
    }

    /// Waits until the gateway routes to `name` (MMI answers 200).
    func waitForService(_ name: String, within seconds: Double = 30) throws {
        try waitForStatus(name, "200", within: seconds)
    }

    /// Waits until the gateway has declared every worker of `name` dead (MMI answers 404).
    func waitForServiceGone(_ name: String, within seconds: Double = 30) throws {
        try waitForStatus(name, "404", within: seconds)
    }

    private func waitForStatus(_ name: String, _ status: String, within seconds: Double) throws {
        let client = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: 200, serverKey: serverKey)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? client.serviceStatus(name)) == status { return }
            usleep(20_000)
        }
        throw StackError("mmi.service \(name) never answered \(status):\n\(services[name]?.output ?? "")\n\(gateway?.output ?? "")")
    }

    /// A client that signs as the operator (admin, any app, any device).
    func client(timeoutMilliseconds: Int = 10_000) throws -> MajordomoClient {
        let client = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: timeoutMilliseconds, serverKey: serverKey)
        client.signer = signer()
        return client
    }
}

struct StackError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A device client for tests: typed calls and raw JSON ones.
extension MajordomoClient {
    /// Calls `command` with a JSON object and returns the reply as `JSONValue`. Before a registration
    /// the app is created (admin, idempotent), since only known apps register devices.
    func json(_ command: String, _ payload: [String: JSONValue]) throws -> JSONValue {
        if command == "device.register", let appKey = payload["app_key"]?.string, signer != nil {
            _ = try call("app.create", payload: WireCodec.encode(JSONValue.object(["name": .string(appKey), "app_key": .string(appKey)])))
        }
        let reply = try call(command, payload: WireCodec.encode(JSONValue.object(payload)))
        return try JSONDecoder().decode(JSONValue.self, from: reply)
    }

    /// Registers a device and returns its registration ID. With `registrationID` the device
    /// re-registers, signed as itself (the signer derives its key), and gets the same ID back.
    func register(appKey: String = "app1", deviceID: String? = nil, registrationID: String? = nil) throws -> String {
        var payload: [String: JSONValue] = ["app_key": .string(appKey), "platform": .string("ios")]
        if let deviceID { payload["device_id"] = .string(deviceID) }
        if let registrationID { payload["registration_id"] = .string(registrationID) }
        let reply = try json("device.register", payload)
        guard let id = reply["registration_id"]?.string else { throw StackError("register failed: \(reply)") }
        return id
    }
}

extension JSONValue {
    var code: Int? { self["code"]?.number.map { Int($0) } }
}
