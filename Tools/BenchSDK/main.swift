import Foundation
import PushBusSDK

// bench-sdk: N SDK instances in this one process, each a phone with its own state, against a
// running stack: all register, set a tag, open the live channel, then each must receive one
// broadcast (the script sends it once every channel is open). Prints one JSON object: the time of
// each phase, and this process's CPU and memory, per device.
// Usage: bench-sdk --server URL --channel URL --ca-file PEM --app-key KEY --state DIR --devices N --ready FILE --go FILE

func flag(_ name: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: "--" + name), index + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[index + 1]
}
guard let server = flag("server").flatMap(URL.init(string:)), let channel = flag("channel").flatMap(URL.init(string:)),
      let appKey = flag("app-key"), let stateRoot = flag("state"), let ready = flag("ready"), let go = flag("go") else {
    print("usage: bench-sdk --server URL --channel URL [--ca-file PEM] --app-key KEY --state DIR --devices N --ready FILE --go FILE")
    exit(2)
}
let count = flag("devices").flatMap { Int($0) } ?? 2000

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
func residentMiB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
}

let callbacks = DispatchQueue(label: "bench-sdk.callbacks")
let rssBefore = residentMiB()
let clients = try (0..<count).map { index -> PushBusClient in
    let client = try PushBusClient(configuration: PushBusConfiguration(appKey: appKey, server: server, channelURL: channel,
                                                                       stateDirectory: URL(fileURLWithPath: "\(stateRoot)/\(index)"),
                                                                       caFile: flag("ca-file")))
    client.callbackQueue = callbacks
    return client
}

/// Runs `step` on every client and waits until each completed; the seconds it took and the codes.
func phase(_ step: (PushBusClient, @escaping (Int) -> Void) -> Void) -> (seconds: Double, failures: Int) {
    let group = DispatchGroup()
    let failures = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    failures.pointee = 0
    let start = Date()
    for client in clients {
        group.enter()
        step(client) { code in
            if code != 0 { failures.pointee += 1 }  // on the serial callback queue
            group.leave()
        }
    }
    group.wait()
    defer { failures.deallocate() }
    return (Date().timeIntervalSince(start), callbacks.sync { failures.pointee })
}

let cpuStart = cpuSeconds()
let register = phase { client, done in client.register { code, _ in done(code) } }
let tags = phase { client, done in client.addTags(["bench"], completion: { code, _, _ in done(code) }, seq: 0) }
let received = DispatchSemaphore(value: 0)
for client in clients { client.onMessage = { _ in received.signal() } }
let connectStart = Date()
for client in clients { client.connectChannel() }
while clients.contains(where: { !$0.channelState.open }) && Date().timeIntervalSince(connectStart) < 120 { usleep(100_000) }
let connected = clients.filter { $0.channelState.open }.count
let connectSeconds = Date().timeIntervalSince(connectStart)
let rssConnected = residentMiB()
FileManager.default.createFile(atPath: ready, contents: Data("\(connected)\n".utf8))
while !FileManager.default.fileExists(atPath: go) { usleep(20_000) }
let broadcastStart = Date()
var got = 0
while got < count, received.wait(timeout: .now() + 60) == .success { got += 1 }
let broadcastSeconds = Date().timeIntervalSince(broadcastStart)
let cpu = cpuSeconds() - cpuStart
let summary: [String: Any] = [
    "devices": count, "register_s": register.seconds, "register_failures": register.failures, "tags_s": tags.seconds,
    "tags_failures": tags.failures, "connect_s": connectSeconds, "connected": connected, "broadcast_received": got,
    "broadcast_s": broadcastSeconds, "cpu_s": cpu, "cpu_ms_per_device": cpu / Double(count) * 1000,
    "rss_before_mib": rssBefore, "rss_connected_mib": rssConnected,
    "kib_per_connected_device": (rssConnected - rssBefore) * 1024 / Double(max(1, connected)),
]
let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))
for client in clients { client.disconnectChannel() }
exit(got == count ? 0 : 1)
