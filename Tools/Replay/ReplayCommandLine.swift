import Foundation
import ReplayKit
import Runtime

/// pushbus-replay's settings, from flags or `PUSHBUS_*` variables: the `TrafficGenerator` that
/// `generate` runs and the `ReplayOptions` of `run`, whose initial values are the flags' defaults.
struct ReplayCommandLine: Options {
    var generator = TrafficGenerator(devices: 1000, commands: 10_000, seed: 1)
    var out: String?
    var file: String?
    var run = ReplayOptions(endpoint: DefaultEndpoints.request)
    var dataDirectory = "./data"
    var json = false
    var quiet = false

    init() {}

    static let options: [Option<ReplayCommandLine>] = [
        .int("devices", \.generator.devices, in: 1...100_000_000, help: "generate: devices, each registered first."),
        .int("commands", \.generator.commands, in: 0...1_000_000_000, help: "generate: commands after the registrations."),
        Option("seed", \.generator.seed, help: "generate: seed; the same seed gives the same file.", format: { String($0) }, parse: { text throws(UsageError) in
            guard let seed = UInt64(text) else { throw UsageError("--seed must be a whole number") }
            return seed
        }),
        Option("mix", \.generator.mix, help: "generate: default (every service), tagging, or reads (tags.get, alias.get, tags.valid).",
               format: { $0.name }, parse: { text throws(UsageError) in
            guard let mix = TrafficMix.named(text) else { throw UsageError("--mix must be default, tagging or reads") }
            return mix
        }),
        Option("rate", \.generator.rate, help: "generate: recorded pace, commands per second.", format: { String(Int($0)) }, parse: { text throws(UsageError) in
            guard let rate = Double(text), rate > 0 else { throw UsageError("--rate must be a positive number") }
            return rate
        }),
        .string("app-key", \.generator.appKey, help: "generate: the app_key of the generated devices."),
        .optional("out", \.out, help: "generate: the file to write."),
        .optional("file", \.file, help: "run: the recording to replay."),
        .string("endpoint", \.run.endpoint, help: "run: the gateway's request endpoint."),
        .int("window", \.run.window, in: 1...1_000_000, help: "run: requests in flight at most."),
        .int("connections", \.run.connections, in: 1...1024, help: "run: connections to the gateway."),
        Option("speed", \.run.speed, help: "run: multiple of the recorded pace, or max.",
               format: { $0.map { String(format: "%g", $0) } ?? "max" }, parse: { text throws(UsageError) in
            if text == "max" { return nil }
            guard let speed = Double(text), speed > 0 else { throw UsageError("--speed must be a positive number or max") }
            return speed
        }),
        .int("timeout-ms", \.run.timeoutMilliseconds, in: 1...3_600_000, help: "run: a request unanswered this long counts as timed out."),
        .optional("curve-server-key", \.run.serverKey, help: "run: the gateway's CURVE public key, when it requires encryption."),
        .string("data-dir", \.dataDirectory, help: "run: the deployment's data directory, whose admin.secret and server.key sign the requests."),
        .optional("ids", \.run.idsFile, help: "run: a file of the IDs this stack gave for recorded ones, read first when it exists and written after; replays a recording in parts (registrations, then the load) against the same devices."),
        .optional("edge", \.run.edge,
                  help: "run: the device edge's host:port (api): every call goes as POST /v1/device/<command> over --connections HTTP/1.1 keep-alive connections, one request at a time each, instead of MDP."),
        .switch("verify", \.run.verify, help: "run: compare every reply with the recorded one."),
        .switch("json", \.json, help: "run: print the summary as JSON."),
        .switch("quiet", \.quiet, help: "run: no progress line."),
    ]
}
