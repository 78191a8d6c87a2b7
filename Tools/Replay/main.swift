import Credentials
import Foundation
import ReplayKit
import Runtime
import Schema

let summary = """
    PushBus load tester: generates recordings and replays them against a gateway.

    COMMANDS:
      generate --devices N --commands M --seed S --out FILE [--mix default|tagging] [--rate R]
      run --file FILE --endpoint E [--window W] [--connections K] [--speed X|max] [--verify] [--json]

    A recording is JSON lines: {"t":ms,"service":"device","command":…,"payload":{…},"reply":{…}}.
    The gateway writes one with --record FILE.
    """
let flags = Flags.parseOrExit(program: "pushbus-replay", summary: summary, flags: [
    Flag("devices", default: "1000", help: "generate: devices, each registered first."),
    Flag("commands", default: "10000", help: "generate: commands after the registrations."),
    Flag("seed", default: "1", help: "generate: seed; the same seed gives the same file."),
    Flag("mix", default: "default", help: "generate: default (every service), tagging, or reads (tags.get, alias.get, tags.valid)."),
    Flag("rate", default: "1000", help: "generate: recorded pace, commands per second."),
    Flag("app-key", default: "replay", help: "generate: the app_key of the generated devices."),
    Flag("out", default: nil, help: "generate: the file to write."),
    Flag("file", default: nil, help: "run: the recording to replay."),
    Flag("endpoint", default: "tcp://127.0.0.1:5555", help: "run: the gateway's request endpoint."),
    Flag("window", default: "256", help: "run: requests in flight at most."),
    Flag("connections", default: "4", help: "run: connections to the gateway."),
    Flag("speed", default: "1", help: "run: multiple of the recorded pace, or max."),
    Flag("timeout-ms", default: "30000", help: "run: a request unanswered this long counts as timed out."),
    Flag("curve-server-key", default: nil, help: "run: the gateway's CURVE public key, when it requires encryption."),
    Flag("data-dir", default: "./data", help: "run: the deployment's data directory, whose admin.secret and server.key sign the requests."),
    .switch("verify", help: "run: compare every reply with the recorded one."),
    .switch("json", help: "run: print the summary as JSON."),
    .switch("quiet", help: "run: no progress line."),
])

func generate() throws -> Int32 {
    guard let out = flags.optionalString("out") else { throw UsageError("generate needs --out FILE") }
    guard let mix = TrafficMix.named(flags.string("mix")) else { throw UsageError("--mix must be default, tagging or reads") }
    guard let seed = UInt64(flags.string("seed")) else { throw UsageError("--seed must be a whole number") }
    guard let rate = Double(flags.string("rate")), rate > 0 else { throw UsageError("--rate must be a positive number") }
    let generator = TrafficGenerator(devices: try flags.int("devices", in: 1...100_000_000),
                                     commands: try flags.int("commands", in: 0...1_000_000_000), seed: seed,
                                     mix: mix, rate: rate, appKey: flags.string("app-key"))
    let lines = try generator.write(to: out)
    print("wrote \(lines) calls to \(out) (mix \(mix.name), seed \(seed))")
    return 0
}

func run() throws -> Int32 {
    guard let file = flags.optionalString("file") else { throw UsageError("run needs --file FILE") }
    let speedText = flags.string("speed")
    let speed: Double?
    if speedText == "max" { speed = nil } else if let value = Double(speedText), value > 0 { speed = value } else {
        throw UsageError("--speed must be a positive number or max")
    }
    let options = ReplayOptions(endpoint: flags.string("endpoint"), window: try flags.int("window", in: 1...1_000_000),
                                connections: try flags.int("connections", in: 1...1024), speed: speed,
                                verify: flags.bool("verify"), timeoutMilliseconds: try flags.int("timeout-ms", in: 1...3_600_000),
                                progress: !flags.bool("quiet"), serverKey: flags.optionalString("curve-server-key"),
                                secrets: Secrets.read(directory: flags.string("data-dir")))
    let calls = try Recording.read(file)
    let result = try Replayer(calls, options: options).run()
    if flags.bool("json") {
        print(String(decoding: WireCodec.encode(result), as: UTF8.self))
    } else {
        print(result.text)
    }
    let verified = result.verify.map { $0.matched == $0.checked } ?? true
    return verified && result.timeouts == 0 ? 0 : 1
}

do {
    switch flags.arguments.first {
    case "generate": exit(try generate())
    case "run": exit(try run())
    default: throw UsageError("give a command: generate or run (see --help)")
    }
} catch let error as UsageError {
    Flags.exitUsage("pushbus-replay", error)
} catch {
    FileHandle.standardError.write(Data("pushbus-replay: \(error)\n".utf8))
    exit(2)
}
