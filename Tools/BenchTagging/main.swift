import Foundation
import Runtime
import Schema
import TaggingKit
import Worker

// Loads N devices with 10 tags each into a real tagging store (the handler's own code path, 1000
// calls per transaction as the worker's group commit does), then times audience resolution.

/// From flags; each property's initial value is its flag's default.
struct Settings: Options {
    var devices = 1_000_000
    var pageSize = 10_000
    var directory = NSTemporaryDirectory() + "bench-tagging"

    init() {}

    static let options: [Option<Settings>] = [
        .int("devices", \.devices, in: 1000...100_000_000, help: "Devices to load, 10 tags each."),
        .int("page", \.pageSize, in: 1...10_000, help: "Audience page size."),
        .string("dir", \.directory, help: "Where the database goes."),
    ]
}

let settings = Settings.parseOrExit(program: "bench-tagging", summary: "Tagging benchmark: bulk tags, then audience queries.")
let devices = settings.devices
let pageSize = settings.pageSize
let directory = settings.directory
try? FileManager.default.removeItem(atPath: directory)
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
let path = directory + "/tagging.sqlite"

/// The 10 tags of device n: one every device has, two that split devices in tenths (their AND is a
/// hundredth), and seven of finer grain.
func tags(of n: Int) -> [String] {
    ["all", "g\(n % 10)", "h\(n / 10 % 10)", "k\(n / 100 % 100)", "m\(n % 1000)", "p\(n % 7)", "q\(n % 13)",
     "r\(n % 101)", "s\(n / 1000 % 1000)", "t\(n % 10_007)"]
}

func rssMegabytes() -> (now: Double, peak: Double) {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Double {
        let line = status.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
    return (field("VmRSS:"), field("VmHWM:"))
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = Clock.milliseconds()
    try body()
    return Double(Clock.milliseconds() - start) / 1000
}

func fileMegabytes(_ path: String) -> Double {
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    return Double(size) / 1_048_576
}

let handler = try TaggingHandler(path: path, clock: { 0 })
print("bench-tagging: loading \(devices) devices × 10 tags into \(path)")
let batch = 1000
let loadSeconds = try seconds {
    var n = 0
    while n < devices {
        let end = min(n + batch, devices)
        try handler.storage.store.write { db in
            for device in n..<end {
                let payload = TagsChange(appKey: "bench", registrationID: String(format: "d%09d", device), tags: tags(of: device))
                // A fresh clock value per call keeps the rate limiter out of a bulk load.
                _ = try handler.handle(.tagsAdd, Request(.tagsAdd, payload), in: db)
            }
        }
        n = end
        if n % 100_000 == 0 { print("  \(n) devices, rss \(Int(rssMegabytes().now)) MB") }
    }
}

/// Pages through an audience; returns (devices, seconds, first-page seconds).
@MainActor
func resolveAll(_ audience: AudienceResolve) throws -> (count: Int, seconds: Double, first: Double) {
    var count = 0
    var first = 0.0
    var cursor: String?
    let total = try seconds {
        repeat {
            var request = audience
            request.cursor = cursor
            request.limit = pageSize
            let started = Clock.milliseconds()
            let reply = try handler.storage.store.write { db in try handler.handle(.audienceResolve, Request(.audienceResolve, request), in: db) }
            let page = try WireCodec.decode(AudiencePage.self, from: WireCodec.encode(AnyEncodable(reply)))
            if cursor == nil { first = Double(Clock.milliseconds() - started) / 1000 }
            count += page.registrationIDs.count
            cursor = page.nextCursor
        } while cursor != nil
    }
    return (count, total, first)
}

struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

let everyone = try resolveAll(AudienceResolve(appKey: "bench", tags: ["all"]))
let both = try resolveAll(AudienceResolve(appKey: "bench", tagAnd: ["g3", "h7"]))
let combined = try resolveAll(AudienceResolve(appKey: "bench", tags: ["g1", "g2"], tagAnd: ["p3"], tagNot: ["h5"]))
let rss = rssMegabytes()
let database = fileMegabytes(path) + fileMegabytes(path + "-wal")

print("""

## tagging (\(devices) devices × 10 tags, page \(pageSize))
| measure | value |
| --- | --- |
| load (tags.add through the handler, 1000 per transaction) | \(String(format: "%.1f", loadSeconds)) s, \(Int(Double(devices) / loadSeconds)) devices/s |
| resolve `tag: [all]` (\(everyone.count) devices, all pages) | \(String(format: "%.2f", everyone.seconds)) s; first page with total \(String(format: "%.3f", everyone.first)) s |
| resolve `tag_and: [g3, h7]` (two \(devices / 10)-device tags → \(both.count)) | \(String(format: "%.3f", both.seconds)) s; first page \(String(format: "%.3f", both.first)) s |
| resolve `tag: [g1, g2], tag_and: [p3], tag_not: [h5]` (\(combined.count)) | \(String(format: "%.3f", combined.seconds)) s |
| database size (file + WAL) | \(String(format: "%.0f", database)) MB |
| RSS now / peak | \(String(format: "%.0f", rss.now)) MB / \(String(format: "%.0f", rss.peak)) MB |
""")
