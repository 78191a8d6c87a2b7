import Foundation
import Runtime
import Schema

/// The launcher's settings: where data lives, which ports, which services.
struct LauncherOptions {
    var dataDirectory: String
    var host: String
    /// Where the event bus listens: loopback unless told otherwise, since only the services on
    /// this machine need it.
    var busHost: String
    var basePort: Int
    var logLevel: String
    var readyTimeoutMilliseconds: Int
    var services: [Service]
    var shards: [Service: Int] = [:]
    /// Require CURVE on the request endpoint, with the key pair kept in the data directory.
    var curve: Bool

    static let flags: [Flag] = [
        Flag("data-dir", default: "./data", help: "Directory for every service's database."),
        Flag("host", default: "127.0.0.1", help: "Address the gateway's request and metrics endpoints bind, and services dial."),
        Flag("bus-host", default: "127.0.0.1", help: "Address the event bus (events in N+2, out N+3) binds; loopback keeps it from other machines."),
        Flag("base-port", default: "5555", help: "Requests on N, metrics N+1, events in N+2, events out N+3."),
        Flag("services", default: "all", help: "Comma-separated services to run, or all (those built)."),
        Flag("shards", default: "", help: "Shards per stateful service, e.g. tagging=2,badge=2 (the rest run one)."),
        .switch("curve", help: "Require CURVE encryption on the request endpoint (key pair kept in <data-dir>/curve.secret)."),
        Flag("ready-timeout-ms", default: "60000", help: "How long to wait for every service to answer MMI."),
        Flag("log-level", default: "info", help: "Passed to every child: trace, debug, info, notice, warning or error."),
    ]

    init(_ flags: Flags, binDirectory: String) throws(UsageError) {
        dataDirectory = flags.string("data-dir")
        host = flags.string("host")
        busHost = flags.string("bus-host")
        basePort = try flags.int("base-port", in: 1...65_532)
        logLevel = flags.string("log-level")
        _ = try flags.logLevel()
        readyTimeoutMilliseconds = try flags.int("ready-timeout-ms", in: 100...3_600_000)
        curve = flags.bool("curve")
        for pair in flags.string("shards").split(separator: ",") {
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let service = Service(rawValue: String(parts[0])), let count = Int(parts[1]),
                  (1...64).contains(count) else {
                throw UsageError("--shards takes service=count pairs with 1...64 shards, e.g. tagging=2,badge=2")
            }
            shards[service] = count
        }
        let built = Service.allCases.filter { FileManager.default.isExecutableFile(atPath: "\(binDirectory)/\($0.name)") }
        let wanted = flags.string("services")
        if wanted == "all" {
            services = built
        } else {
            var chosen: [Service] = []
            for name in wanted.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let service = Service(rawValue: name) else { throw UsageError("unknown service \(name)") }
                guard built.contains(service) else { throw UsageError("service \(name) is not built in \(binDirectory)") }
                chosen.append(service)
            }
            services = chosen
        }
    }

    func shardCount(_ service: Service) -> Int { shards[service] ?? 1 }

    /// The gateway's `--shards` value.
    var shardFlag: String {
        shards.filter { $0.value > 1 }.sorted { $0.key.name < $1.key.name }.map { "\($0.key.name)=\($0.value)" }.joined(separator: ",")
    }

    var requestEndpoint: String { "tcp://\(host):\(basePort)" }
    var eventsInEndpoint: String { "tcp://\(busHost):\(basePort + 2)" }
    var eventsOutEndpoint: String { "tcp://\(busHost):\(basePort + 3)" }
}
