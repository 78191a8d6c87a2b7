import Foundation
import Runtime
import Schema

/// The launcher's settings: where data lives, which ports, which services; each property's initial
/// value is its flag's default.
struct LauncherOptions: Options {
    var dataDirectory = "./data"
    var host = "127.0.0.1"
    /// Where the event bus listens: loopback unless told otherwise, since only the services on
    /// this machine need it.
    var busHost = "127.0.0.1"
    var basePort = 5555
    var logLevel = Logger.Level.info
    var readyTimeoutMilliseconds = 60_000
    /// The services to run, by name, or `all` (those built); `resolveServices` checks them.
    var serviceNames = "all"
    var services: [Service] = []
    var shards = ShardMap()
    /// Workers of a stateless service (`apns`) beside each other, all serving the one service name.
    var replicas = ShardMap()
    /// REST API processes (`api`), all serving base port + 4 side by side; 0 runs none.
    var apiProcesses = 1
    /// Require CURVE on the request endpoint, with the key pair kept in the data directory.
    var curve = false
    /// HTTPS and wss for the device edge (api) and the device channel: PEM files, both or neither.
    var tlsCertificate: String?
    var tlsKey: String?
    /// Print the processes instead of starting them (what `Tools/validate-deploy.sh` checks deploy/ against).
    var dryRun = false

    static let options: [Option<LauncherOptions>] = [
        .string("data-dir", \.dataDirectory, help: "Directory for every service's database."),
        .string("host", \.host, help: "Address the gateway's request and metrics endpoints bind, and services dial."),
        .string("bus-host", \.busHost, help: "Address the event bus (events in N+2, out N+3) binds; loopback keeps it from other machines."),
        .int("base-port", \.basePort, in: 1...65_530, help: "Requests on N, metrics N+1, events in N+2, events out N+3, REST API N+4, device channel N+5."),
        .string("services", \.serviceNames, help: "Comma-separated services to run, or all (those built)."),
        .shards(\.shards),
        Option("replicas", \.replicas,
               help: "Processes of a stateless service, e.g. apns=4: each serves the one service and the gateway spreads requests by credit.",
               format: { $0.text }, parse: { text throws(UsageError) in try ShardMap(parsing: text, flag: "replicas") }),
        .switch("curve", \.curve, help: "Require CURVE encryption on the request endpoint (key pair kept in <data-dir>/curve.secret)."),
        .int("ready-timeout-ms", \.readyTimeoutMilliseconds, in: 100...3_600_000, help: "How long to wait for every service to answer MMI."),
        .logLevel(\.logLevel, help: "Passed to every child: trace, debug, info, notice, warning or error."),
        .int("api", \.apiProcesses, in: 0...64, help: "REST API processes (EngageLab v4, JPush v3), all on port N+4; 0 for none."),
        .optional("tls-cert", \.tlsCertificate, help: "PEM certificate chain: api serves HTTPS and channel wss:// with it (passed to both); needs --tls-key."),
        .optional("tls-key", \.tlsKey, help: "PEM private key of --tls-cert."),
        .switch("dry-run", \.dryRun, help: "Print the processes it would start, one a line (name, executable, arguments), and exit."),
    ]

    init() {}

    func validate() throws(UsageError) {
        if (tlsCertificate == nil) != (tlsKey == nil) { throw UsageError("--tls-cert and --tls-key go together") }
    }

    init(_ flags: Flags, binDirectory: String) throws(UsageError) {
        try self.init(flags)
        let built = Service.allCases.filter { FileManager.default.isExecutableFile(atPath: "\(binDirectory)/\($0.name)") }
        if serviceNames == "all" {
            services = built
        } else {
            var chosen: [Service] = []
            for name in serviceNames.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let service = Service(rawValue: name) else { throw UsageError("unknown service \(name)") }
                guard built.contains(service) else { throw UsageError("service \(name) is not built in \(binDirectory)") }
                chosen.append(service)
            }
            services = chosen
        }
        for service in Service.allCases {
            if service.isStateless, shards.count(service) > 1 {
                throw UsageError("\(service.name) keeps nothing: run more of it with --replicas \(service.name)=N, not --shards")
            }
            if !service.isStateless, replicas.count(service) > 1 {
                throw UsageError("\(service.name) keeps data: scale it with --shards; --replicas is for stateless services (apns)")
            }
        }
    }

    /// The request endpoint: the gateway binds it, services and clients dial it (`--endpoint`).
    var endpoint: String { "tcp://\(host):\(basePort)" }
    var eventsIn: String { "tcp://\(busHost):\(basePort + 2)" }
    var eventsOut: String { "tcp://\(busHost):\(basePort + 3)" }
    /// Where the REST API serves HTTP.
    var apiAddress: String { "\(host):\(basePort + 4)" }
    /// Where devices connect to the channel processes, all on one port: base port + 5.
    var channelAddress: String { "\(host):\(basePort + 5)" }
}
