import Foundation
import Runtime

var settings = IngestBench.Settings.parseOrExit(program: "bench-analytics", summary: "Analytics ingest and query benchmark (see IngestBench).")
let temporary = settings.directory.isEmpty
if temporary { settings.directory = NSTemporaryDirectory() + "bench-analytics-\(UUID().uuidString.prefix(8))" }
do {
    try FileManager.default.createDirectory(atPath: settings.directory, withIntermediateDirectories: true)
    print(try IngestBench(settings).run())
    if temporary { try? FileManager.default.removeItem(atPath: settings.directory) }
} catch {
    print("bench-analytics: \(error)")
    if temporary { try? FileManager.default.removeItem(atPath: settings.directory) }
    exit(1)
}
