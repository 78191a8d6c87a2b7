import Foundation
import Runtime

let flags = Flags.parseOrExit(program: "bench-analytics", summary: "Analytics ingest and query benchmark (see IngestBench).", flags: [
    Flag("events", default: "1000000", help: "Events to ingest."),
    Flag("batch", default: "50", help: "Events per ma.events request (the SDK flushes 50..500)."),
    Flag("credit", default: "64", help: "Requests per group commit, as the worker's --credit."),
    Flag("users", default: "2000", help: "EUIDs sending events."),
    Flag("days", default: "30", help: "Days the event times spread over."),
    Flag("rounds", default: "10", help: "Alternations between the service and the plain insert."),
    Flag("dir", default: "", help: "Directory for the two databases (default: a new temporary one, removed after)."),
])

var settings = IngestBench.Settings()
do throws(UsageError) {
    settings.events = try flags.int("events", in: 1...100_000_000)
    settings.batch = try flags.int("batch", in: 1...500)
    settings.credit = try flags.int("credit", in: 1...10_000)
    settings.users = try flags.int("users", in: 1...1_000_000)
    settings.days = try flags.int("days", in: 1...3650)
    settings.rounds = try flags.int("rounds", in: 1...1000)
} catch {
    Flags.exitUsage("bench-analytics", error)
}
let temporary = flags.optionalString("dir") == nil
settings.directory = flags.optionalString("dir") ?? NSTemporaryDirectory() + "bench-analytics-\(UUID().uuidString.prefix(8))"
do {
    try FileManager.default.createDirectory(atPath: settings.directory, withIntermediateDirectories: true)
    print(try IngestBench(settings).run())
    if temporary { try? FileManager.default.removeItem(atPath: settings.directory) }
} catch {
    print("bench-analytics: \(error)")
    if temporary { try? FileManager.default.removeItem(atPath: settings.directory) }
    exit(1)
}
