import ApiKit
import AnalyticsKit
import BadgeKit
import Foundation
import Runtime
import SchedulerKit
import TaggingKit
import Testing
import PushKit
import ApnsKit
import ChannelKit
import Worker
@testable import GatewayKit

/// Options declared once: one `Option` per flag (name, help, the property it sets), the default
/// being the property's initial value; parsing and `--help` both read the table.
@Suite("options")
struct OptionsTests {
    struct Sample: Options {
        var dataDirectory = "./data"
        var credit = 64
        var key: String? = "k"
        var json = false
        var level = Logger.Level.info
        var seconds: Double = 1800

        init() {}

        static let options: [Option<Sample>] = [
            .string("data-dir", \.dataDirectory, help: "where"),
            .int("credit", \.credit, in: 1...100, help: "how many"),
            .optional("key", \.key, help: "which; empty for none"),
            .switch("json", \.json, help: "raw"),
            .logLevel(\.level),
            .int("seconds", \.seconds, in: 1...86_400, help: "how long"),
        ]
    }

    func parse<Settings: Options>(_: Settings.Type, _ commandLine: [String], environment: [String: String] = [:]) throws(UsageError) -> Settings {
        var flags = Flags(program: "t", summary: "", flags: Settings.flags)
        try flags.parse(commandLine, environment: environment)
        return try Settings(flags)
    }

    @Test("a variable two programs read takes the same values in both: PUSHBUS_REGISTER_RATE=0 (no limit) starts the gateway and the api alike")
    func aSharedVariableSuitsEveryProgramThatReadsIt() throws {
        let environment = ["PUSHBUS_REGISTER_RATE": "0"]
        #expect(try parse(GatewayOptions.self, [], environment: environment).registerRate == 0)
        #expect(try parse(ApiOptions.self, [], environment: environment).registerRate == 0, "the api refused it and restarted for ever")
    }

    @Test func nothingGivenIsTheStructsDefaults() throws {
        let sample = try parse(Sample.self, [])
        #expect(sample.dataDirectory == "./data" && sample.credit == 64 && sample.key == "k" && !sample.json)
        #expect(sample.level == .info && sample.seconds == 1800)
        let gateway = try parse(GatewayOptions.self, [])
        let defaults = GatewayOptions()
        #expect(gateway.endpoint == defaults.endpoint && gateway.metricsAddress == "127.0.0.1:5556" && gateway.recordPath == nil)
        #expect(gateway.registerBurst == defaults.registerBurst && gateway.keyCacheMegabytes == 32 && gateway.logLevel == .info)
        let worker = try parse(WorkerOptions.self, [])
        #expect(worker.endpoint == WorkerOptions().endpoint && worker.credit == 1024 && worker.checkpointMilliseconds == 1000)
        #expect(try parse(SchedulerSettings.self, []).maxPending == SchedulerSettings().maxPending)
        #expect(try parse(AnalyticsSettings.self, []) == AnalyticsSettings())
        #expect(try parse(BadgeSettings.self, []).retentionHours == 24)
        #expect(try parse(TaggingSettings.self, []).aliasMaxDevices == 10)
    }

    @Test func theVariableThenTheCommandLineOverrideTheDefault() throws {
        #expect(try parse(Sample.self, [], environment: ["PUSHBUS_CREDIT": "8"]).credit == 8)
        #expect(try parse(Sample.self, ["--credit=9"], environment: ["PUSHBUS_CREDIT": "8"]).credit == 9)
        let given = try parse(Sample.self, ["--data-dir", "/d", "--key", "", "--json", "--log-level", "debug", "--seconds", "60"])
        #expect(given.dataDirectory == "/d" && given.key == nil && given.json && given.level == .debug && given.seconds == 60)
        #expect(try parse(Sample.self, [], environment: ["PUSHBUS_JSON": "yes"]).json)
        #expect(try parse(GatewayOptions.self, ["--metrics", ""]).metricsAddress == nil, "empty is none")
        let worker = try parse(WorkerOptions.self, ["--endpoint", "tcp://gw:1", "--events-in", "tcp://gw:2"],
                               environment: ["PUSHBUS_EVENTS_OUT": "tcp://gw:3"])
        #expect(worker.endpoint == "tcp://gw:1" && worker.eventsIn == "tcp://gw:2" && worker.eventsOut == "tcp://gw:3")
        let analytics = try parse(AnalyticsSettings.self, ["--app-session-timeouts", "a=60,b=120"])
        #expect(analytics.appSessionTimeouts == ["a": 60, "b": 120])
    }

    @Test func aValueOutsideItsFlagsGrammarIsAUsageError() {
        #expect(throws: UsageError("--credit must be a whole number in 1...100")) { try parse(Sample.self, ["--credit", "0"]) }
        #expect(throws: UsageError("--credit must be a whole number in 1...100")) { try parse(Sample.self, [], environment: ["PUSHBUS_CREDIT": "x"]) }
        #expect(throws: UsageError("--log-level must be one of trace, debug, info, notice, warning, error, critical")) {
            try parse(Sample.self, ["--log-level", "loud"])
        }
        #expect(throws: UsageError.self) { try parse(GatewayOptions.self, ["--heartbeat-ms", "5"]) }
        #expect(throws: UsageError.self) { try parse(AnalyticsSettings.self, ["--app-session-timeouts", "a"]) }
    }

    @Test func helpShowsEachFlagOnceWithTheStructsDefault() throws {
        let usage = Flags(program: "t", summary: "", flags: Sample.flags).usage
        #expect(usage.contains("--data-dir <value>") && usage.contains("where (default: ./data) [PUSHBUS_DATA_DIR]"))
        #expect(usage.contains("how many (default: 64) [PUSHBUS_CREDIT]"))
        #expect(usage.contains("how long (default: 1800) [PUSHBUS_SECONDS]"))
        #expect(usage.contains("(default: info) [PUSHBUS_LOG_LEVEL]"))
        #expect(usage.contains("  --json  ") && !usage.contains("--json <value>"))
        let gateway = Flags(program: "gateway", summary: "", flags: GatewayOptions.flags).usage
        #expect(gateway.contains("(default: 127.0.0.1:5556) [PUSHBUS_METRICS]"))
        #expect(gateway.contains("(default: 1048576) [PUSHBUS_MAX_REQUEST_BYTES]"))
        for settings in [Sample.flags, GatewayOptions.flags, WorkerOptions.flags + BadgeSettings.flags, WorkerOptions.flags + TaggingSettings.flags,
                         WorkerOptions.flags + SchedulerSettings.flags, WorkerOptions.flags + AnalyticsSettings.flags] {
            let names = settings.map(\.name)
            #expect(Set(names).count == names.count, "no flag declared twice: \(names)")
        }
    }

    /// The flags each executable's `--help` lists: from its table where a test can read it, else
    /// as they stood before the tables (pushctl's probe flags renamed with the workers').
    static let executables: [(program: String, flags: [String])] = [
        ("gateway", GatewayOptions.flags.map(\.name)),
        ("registration", WorkerOptions.flags.map(\.name)),
        ("tagging", (WorkerOptions.flags + TaggingSettings.flags).map(\.name)),
        ("badge", (WorkerOptions.flags + BadgeSettings.flags).map(\.name)),
        ("scheduler", (WorkerOptions.flags + SchedulerSettings.flags).map(\.name)),
        ("analytics", (WorkerOptions.flags + AnalyticsSettings.flags).map(\.name)),
        ("push", (WorkerOptions.flags + PushSettings.flags).map(\.name)),
        ("apns", (WorkerOptions.flags + ApnsSettings.flags).map(\.name)),
        ("channel", (WorkerOptions.flags + ChannelSettings.flags).map(\.name)),
        ("pushbus", ["data-dir", "host", "bus-host", "base-port", "services", "shards", "replicas", "curve", "ready-timeout-ms", "log-level", "api",
                     "tls-cert", "tls-key", "dry-run"]),
        ("api", ApiOptions.flags.map(\.name)),
        ("pushctl", ["endpoint", "app-key", "platform", "device-id", "registration-id", "timeout-ms", "shard-index", "shard-count",
                     "curve-server-key", "data-dir", "master-secret", "device-secret", "json"]),
        ("pushbus-replay", ["devices", "commands", "seed", "mix", "rate", "app-key", "out", "file", "endpoint", "window", "connections",
                            "speed", "timeout-ms", "curve-server-key", "data-dir", "ids", "edge", "verify", "json", "quiet"]),
        ("pushbus-fuzz", ["endpoint", "messages", "seed", "window", "data-dir", "json"]),
        ("pushbus-backup", ["data-dir", "out"]),
    ]

    @Test func everyExecutablesHelpListsEveryFlagItTakes() throws {
        let directory = TestPaths.temporaryDirectory("help")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(WorkerOptions.flags.map(\.name).contains("shard-index") && GatewayOptions.flags.map(\.name).contains("shards"))
        for (program, expected) in Self.executables {
            let run = try RunningProcess(TestPaths.executable(program), ["--help"], logDirectory: directory)
            #expect(run.waitForExit(30) == 0, "\(program) --help")
            let listed = run.output.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  --") else { return nil }
                return String(line.dropFirst(4).prefix { $0 != " " })
            }
            #expect(listed == expected + ["help"], "\(program) --help lists \(listed)")
        }
    }
}
