import Client
import Credentials
import Foundation
import Runtime
import Schema
import SQLite
import ZeroMQ

// bench-scheduler: a scheduler holding 1,000,000 pending requests across 100,000 devices, measured
// beside an empty one in the same run: start-up time, memory, and how late a burst of 10,000
// requests due in the same second fires. Run the release build: `.build/release/bench-scheduler`.

/// From flags; each property's initial value is its flag's default.
struct Settings: Options {
    var devices = 100_000
    var perDevice = 10
    var burst = 10_000
    var singles = 5
    var work = NSTemporaryDirectory() + "bench-scheduler"

    init() {}

    static let options: [Option<Settings>] = [
        .int("devices", \.devices, in: 1...10_000_000, help: "Devices seeded."),
        .int("per-device", \.perDevice, in: 1...64, help: "Pending requests seeded per device."),
        .int("burst", \.burst, in: 1...10_000_000, help: "Requests due in the same second (at most --devices)."),
        .int("singles", \.singles, in: 1...100, help: "Lone requests timed for the baseline lateness."),
        .string("work-dir", \.work, help: "Where the databases go (emptied first)."),
    ]

    func validate() throws(UsageError) {
        guard burst <= devices else { throw UsageError("--burst must be a whole number in 1...\(devices)") }
    }
}

let settings = Settings.parseOrExit(program: "bench-scheduler", summary: "Benchmarks the scheduler service.")
let devices = settings.devices
let perDevice = settings.perDevice
let burst = settings.burst
let singles = settings.singles
let work = settings.work
let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
func mib(_ value: Double) -> String { String(format: "%.1f MiB", value) }
func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.1f×", a / b) }

try? FileManager.default.removeItem(atPath: work)
let emptyDir = "\(work)/empty", fullDir = "\(work)/full"
for dir in [emptyDir, fullDir] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }

// 1. Seed.
let seedStart = Date()
let seeded = try Seeder(devices: devices, perDevice: perDevice).seed(path: "\(fullDir)/scheduler.sqlite",
                                                                    now: Date().timeIntervalSince1970)
let seedSeconds = Date().timeIntervalSince(seedStart)
let databaseBytes = ((try? FileManager.default.attributesOfItem(atPath: "\(fullDir)/scheduler.sqlite"))?[.size] as? Int) ?? 0
say("seeded \(seeded) requests for \(devices) devices in \(String(format: "%.1f", seedSeconds)) s "
    + "(\(Int(Double(seeded) / seedSeconds)) adds/s in-process), database \(databaseBytes / 1_048_576) MiB")

// 2. Gateway, then an empty and a full scheduler, one after the other.
let context = try Context()
let request = freePort(), eventsIn = freePort(), eventsOut = freePort()
let endpoint = "tcp://127.0.0.1:\(request)"
// The gateway and both schedulers share one deployment's secrets.
let secrets = try Secrets.load(directory: work)
for dir in [emptyDir, fullDir] {
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for name in ["admin.secret", "server.key"] where !FileManager.default.fileExists(atPath: "\(dir)/\(name)") {
        try FileManager.default.copyItem(atPath: "\(work)/\(name)", toPath: "\(dir)/\(name)")
    }
}
let gateway = try ServiceProcess("\(bin)/gateway", ["--endpoint", endpoint, "--events-in", "tcp://127.0.0.1:\(eventsIn)",
                                                    "--events-out", "tcp://127.0.0.1:\(eventsOut)", "--data-dir", work,
                                                    "--metrics", "127.0.0.1:\(freePort())"],
                                 log: "\(work)/gateway.log")
let client = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: 500)
_ = try gateway.wait(for: "scheduler", status: "404", client: client)

@MainActor func startScheduler(_ dir: String) throws -> (ServiceProcess, Double) {
    let scheduler = try ServiceProcess("\(bin)/scheduler", [
        "--endpoint", endpoint, "--events-in", "tcp://127.0.0.1:\(eventsIn)", "--events-out", "tcp://127.0.0.1:\(eventsOut)",
        "--data-dir", dir, "--log-level", "warning",
    ], log: "\(dir)/scheduler.log")
    return (scheduler, try scheduler.wait(for: "scheduler", client: client))
}

let (empty, emptyStart) = try startScheduler(emptyDir)
let emptyMemory = empty.memory
empty.stop()
_ = try gateway.wait(for: "scheduler", status: "404", client: client)
let (full, fullStart) = try startScheduler(fullDir)
let fullMemory = full.memory
say("start-up: empty \(ms(emptyStart)), \(seeded) pending \(ms(fullStart))")

// 3. Lateness: lone requests first, then the burst, all through the gateway against the full scheduler.
let collector = try FiredCollector(context: context, endpoint: "tcp://127.0.0.1:\(eventsOut)")
let pipeline = try Pipeline(context: context, endpoint: endpoint, secrets: secrets)

func add(_ device: String, _ identifier: String, at due: Double) -> (command: String, payload: Data) {
    let payload = LocalAdd(appKey: "bench", registrationID: device, identifier: identifier,
                           content: LocalContent(title: "Due", body: identifier),
                           trigger: LocalTrigger(fireDate: RFC3339.string(from: Date(timeIntervalSince1970: due))))
    return ("local.add", WireCodec.encode(payload))
}

// The subscription reaches the scheduler asynchronously: probe until an event arrives.
var subscribed = false
for attempt in 0..<100 where !subscribed {
    let probe = LocalAdd(appKey: "bench", registrationID: "probe", identifier: "probe", content: LocalContent(),
                         trigger: LocalTrigger(timeInterval: 0.05))
    _ = try pipeline.send([("local.add", WireCodec.encode(probe))])
    subscribed = try collector.collect("probe", count: attempt + 1, until: Date().addingTimeInterval(0.5)) > 0
}
guard subscribed else { throw BenchError("no local.fired event reached the benchmark") }

var single: [Double] = []
for index in 0..<singles {
    let due = (Date().timeIntervalSince1970 + 1.5).rounded(.up)
    _ = try pipeline.send([add("single", "single\(index)", at: due)])
    guard try collector.collect("single\(index)", count: 1, until: Date(timeIntervalSince1970: due + 30)) == 1 else {
        throw BenchError("lone request \(index) did not fire")
    }
    single.append((collector.arrivals["single\(index)"]?.first?.arrived ?? .nan) - due)
}

let burstDue = (Date().timeIntervalSince1970 + 10).rounded(.up)
let addStart = Date()
let codes = try pipeline.send((0..<burst).map { add(Seeder.deviceID($0), "burst", at: burstDue) })
let addSeconds = Date().timeIntervalSince(addStart)
guard codes.allSatisfy({ $0 == 0 }) else { throw BenchError("burst adds refused: \(Set(codes))") }
guard Date().timeIntervalSince1970 < burstDue else { throw BenchError("the burst was not all added before it was due") }
let received = try collector.collect("burst", count: burst, until: Date(timeIntervalSince1970: burstDue + 60))
let afterBurst = full.memory
full.stop()
gateway.stop()

let arrivals = collector.arrivals["burst"] ?? []
let busLateness = Percentiles(arrivals.map { $0.arrived - burstDue })
let firedLateness = Percentiles(arrivals.map { $0.firedAt - burstDue })
let singleLateness = Percentiles(single)

// The outbox is the record of every event the scheduler published.
let outbox = try Database(path: "\(fullDir)/scheduler.sqlite")
let published = try outbox.value("SELECT COUNT(*) FROM outbox WHERE topic = 'local.fired' AND CAST(event AS TEXT) LIKE '%\"identifier\":\"burst\"%'").int ?? 0

say("""

| measure | empty scheduler | \(seeded) pending (\(devices) devices) | ratio |
| --- | --- | --- | --- |
| start-up (spawn → mmi.service 200) | \(ms(emptyStart)) | \(ms(fullStart)) | \(ratio(fullStart, emptyStart)) |
| RSS after start | \(mib(emptyMemory.rss)) | \(mib(fullMemory.rss)) | \(ratio(fullMemory.rss, emptyMemory.rss)) |
| peak RSS after start | \(mib(emptyMemory.peak)) | \(mib(fullMemory.peak)) | \(ratio(fullMemory.peak, emptyMemory.peak)) |

| firing lateness (due → event received on the bus) | \(singles) lone requests | burst of \(burst) due in one second | ratio |
| --- | --- | --- | --- |
| p50 | \(ms(singleLateness.p50)) | \(ms(busLateness.p50)) | \(ratio(busLateness.p50, singleLateness.p50)) |
| p99 | \(ms(singleLateness.p99)) | \(ms(busLateness.p99)) | \(ratio(busLateness.p99, singleLateness.p99)) |
| max | \(ms(singleLateness.maximum)) | \(ms(busLateness.maximum)) | \(ratio(busLateness.maximum, singleLateness.maximum)) |

burst: \(burst) adds through the gateway in \(String(format: "%.2f", addSeconds)) s; \(received) of \(burst) events received, \
\(published) published; lateness by fired_at p50 \(ms(firedLateness.p50)), p99 \(ms(firedLateness.p99)), max \(ms(firedLateness.maximum)); \
RSS after the burst \(mib(afterBurst.rss)) (peak \(mib(afterBurst.peak)))
""")
