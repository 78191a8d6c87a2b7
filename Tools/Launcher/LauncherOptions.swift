import Foundation
import Runtime
import Schema

/// The launcher's settings: where data lives, which ports, which services.
struct LauncherOptions {
    var dataDirectory: String
    var host: String
    var basePort: Int
    var logLevel: String
    var readyTimeoutMilliseconds: Int
    var services: [Service]

    static let flags: [Flag] = [
        Flag("data-dir", default: "./data", help: "Directory for every service's database."),
        Flag("host", default: "127.0.0.1", help: "Address the gateway binds and services dial."),
        Flag("base-port", default: "5555", help: "Requests on N, metrics N+1, events in N+2, events out N+3."),
        Flag("services", default: "all", help: "Comma-separated services to run, or all (those built)."),
        Flag("ready-timeout-ms", default: "60000", help: "How long to wait for every service to answer MMI."),
        Flag("log-level", default: "info", help: "Passed to every child: trace, debug, info, notice, warning or error."),
    ]

    init(_ flags: Flags, binDirectory: String) throws(UsageError) {
        dataDirectory = flags.string("data-dir")
        host = flags.string("host")
        basePort = try flags.int("base-port", in: 1...65_532)
        logLevel = flags.string("log-level")
        _ = try flags.logLevel()
        readyTimeoutMilliseconds = try flags.int("ready-timeout-ms", in: 100...3_600_000)
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

    var requestEndpoint: String { "tcp://\(host):\(basePort)" }
    var eventsInEndpoint: String { "tcp://\(host):\(basePort + 2)" }
    var eventsOutEndpoint: String { "tcp://\(host):\(basePort + 3)" }
}
