import Client
import Credentials
import Foundation
import Runtime
import Schema
import ZeroMQ

/// Runs the gateway and every chosen service as child processes on one machine, restarts a child
/// that dies, and prints one line containing `ready` once every service answers `mmi.service` 200.
final class Launcher: @unchecked Sendable {
    private let options: LauncherOptions
    private let binDirectory: String
    private let output: PrefixedOutput
    private let children: [Child]
    private let stopped = DispatchSemaphore(value: 0)
    /// The gateway's public key when requests need CURVE.
    private let serverKey: String?
    /// Where the REST API serves, when it runs.
    private let apiAddress: String?

    init(options: LauncherOptions, binDirectory: String) throws {
        self.options = options
        self.binDirectory = binDirectory
        var gatewayCurve: [String] = []
        var serviceCurve: [String] = []
        if options.curve {
            let file = try CurveKeyFile.load(dataDirectory: options.dataDirectory)
            gatewayCurve = ["--curve-secret-file", file.path]
            serviceCurve = ["--curve-server-key", file.keys.publicKey]
            serverKey = file.keys.publicKey
        } else {
            serverKey = nil
        }
        let workers = options.services.flatMap { Self.workers(of: $0, options) }
        let apiNames = FileManager.default.isExecutableFile(atPath: "\(binDirectory)/api") && options.apiProcesses > 0
            ? (1...options.apiProcesses).map { $0 == 1 ? "api" : "api#\($0)" } : []
        let names = ["gateway"] + workers.map(\.name) + apiNames
        output = PrefixedOutput(names: names)
        let level = ["--log-level", "\(options.logLevel)", "--parent-pid", String(getpid())]
        let tls = options.tlsCertificate.map { ["--tls-cert", $0, "--tls-key", options.tlsKey ?? ""] } ?? []
        // The api processes are device edges: they carry every phone's unsigned registration from
        // the address they dial the gateway from, and limit each phone's address themselves.
        let edges = apiNames.isEmpty ? [] : ["--edge-peers", options.host == "0.0.0.0" ? "127.0.0.1" : options.host]
        var children = [Child(name: "gateway", executable: "\(binDirectory)/gateway",
                              arguments: ["--endpoint", options.endpoint, "--events-in", options.eventsIn,
                                          "--events-out", options.eventsOut, "--shards", options.shards.text,
                                          "--data-dir", options.dataDirectory, "--metrics", "\(options.host):\(options.basePort + 1)"]
                                  + edges + gatewayCurve + level,
                              output: output)]
        for worker in workers {
            children.append(Child(name: worker.name, executable: "\(binDirectory)/\(worker.service.name)",
                                  arguments: ["--endpoint", options.endpoint, "--events-in", options.eventsIn,
                                              "--events-out", options.eventsOut, "--data-dir", options.dataDirectory]
                                      + worker.placement + (worker.service == .channel ? ["--listen", options.channelAddress] + tls : [])
                                      + serviceCurve + level,
                                  output: output))
        }
        for name in apiNames {
            children.append(Child(name: name, executable: "\(binDirectory)/api",
                                  arguments: ["--endpoint", options.endpoint, "--data-dir", options.dataDirectory, "--listen", options.apiAddress] + tls
                                      + serviceCurve + level,
                                  output: output))
        }
        apiAddress = apiNames.isEmpty ? nil : options.apiAddress
        self.children = children
    }

    /// The processes of one service: a shard each (`tagging/0`… with its place), or for a stateless
    /// service its replicas (`apns`, `apns#2`…), all serving the one service name.
    static func workers(of service: Service, _ options: LauncherOptions) -> [(name: String, service: Service, placement: [String])] {
        if service.isStateless {
            return (1...options.replicas.count(service)).map { ($0 == 1 ? service.name : "\(service.name)#\($0)", service, []) }
        }
        let count = options.shards.count(service)
        return (0..<count).map {
            (ShardHash.serviceName(service.name, shard: $0, of: count), service, ["--shard-index", String($0), "--shard-count", String(count)])
        }
    }

    /// The children as `--dry-run` prints them: name, executable, then its arguments, tab-separated.
    var plan: [String] {
        children.map { ([$0.name, $0.executable] + $0.arguments).joined(separator: "\t") }
    }

    /// Starts everything and blocks until SIGINT or SIGTERM has stopped every child.
    func run() throws -> Never {
        switch try PrivateFiles.prepareDirectory(options.dataDirectory) {
        case .ready: break
        case .closed(let names):
            output.say("pushbus: data directory was open to other users, now only this user may read it: \(names.joined(separator: ","))")
        case .leftOpen(let mode):
            output.say("pushbus: warning: data directory is open to other users (\(String(mode, radix: 8))) and is not ours to close")
        }
        for service in options.services {
            try ShardLayout(count: options.shards.count(service)).check(directory: options.dataDirectory, service: service.name)
        }
        SignalTrap.onTerminate { [self] _ in stopAll() }
        for child in children { child.start() }
        waitUntilReady()
        stopped.wait()
        exit(0)
    }

    private func waitUntilReady() {
        let deadline = Clock.milliseconds() + Int64(options.readyTimeoutMilliseconds)
        do {
            let client = try MajordomoClient(endpoint: options.endpoint, context: try Context(),
                                             timeoutMilliseconds: 250, serverKey: serverKey)
            var waiting = options.services
            while !waiting.isEmpty && Clock.milliseconds() < deadline {
                waiting = waiting.filter { ((try? client.serviceStatus($0.name)) ?? "") != "200" }
                if !waiting.isEmpty { usleep(50_000) }
            }
            if waiting.isEmpty {
                output.say("pushbus: ready: requests \(options.endpoint), events out \(options.eventsOut), "
                           + "services \(options.services.map(\.name).joined(separator: ","))"
                           + (apiAddress.map { ", REST API and device edge \(options.tlsCertificate == nil ? "http" : "https")://\($0)" } ?? "")
                           + (options.services.contains(.channel) ? ", device channel \(options.tlsCertificate == nil ? "ws" : "wss")://\(options.channelAddress)/v1/channel" : "")
                           + ", data \(options.dataDirectory)"
                           + (serverKey.map { ", CURVE server key \($0)" } ?? "")
                           + "; secrets in \(options.dataDirectory)/admin.secret and server.key")
            } else {
                output.say("pushbus: not ready after \(options.readyTimeoutMilliseconds) ms: "
                           + "no workers for \(waiting.map(\.name).joined(separator: ","))")
            }
        } catch {
            output.say("pushbus: cannot check readiness: \(error)")
        }
    }

    private func stopAll() {
        output.say("pushbus: stopping")
        for child in children.reversed() { child.stop(grace: 5) }
        output.say("pushbus: stopped")
        stopped.signal()
    }
}
