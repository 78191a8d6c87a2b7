import AnalyticsKit
import Foundation
import JSON
import Runtime
import SQLite
import Schema
import WireTime
import Worker

/// Ingests MA events through the analytics handler in SDK-sized batches, group-committed as the worker loop
/// does, side by side with a plain batched SQLite insert of the same rows, then times `stats.events` queries
/// over them. Both databases are durable (WAL, synchronous=FULL) in one directory.
final class IngestBench {
    /// From flags; each property's initial value is its flag's default.
    struct Settings: Options {
        var events = 1_000_000
        var batch = 50
        var credit = 64
        var users = 2000
        var days = 30
        var rounds = 10
        /// Empty: a new temporary directory, removed after.
        var directory = ""

        init() {}

        static let options: [Option<Settings>] = [
            .int("events", \.events, in: 1...100_000_000, help: "Events to ingest."),
            .int("batch", \.batch, in: 1...500, help: "Events per ma.events request (the SDK flushes 50..500)."),
            .int("credit", \.credit, in: 1...10_000, help: "Requests per group commit, as the worker's --credit."),
            .int("users", \.users, in: 1...1_000_000, help: "EUIDs sending events."),
            .int("days", \.days, in: 1...3650, help: "Days the event times spread over."),
            .int("rounds", \.rounds, in: 1...1000, help: "Alternations between the service and the plain insert."),
            .string("dir", \.directory, help: "Directory for the two databases (default: a new temporary one, removed after)."),
        ]
    }

    /// One event as both sides store it.
    struct Row {
        let euid: String
        let name: String
        let time: Double
        let properties: String
    }

    let settings: Settings
    let handler: AnalyticsHandler
    let plain: Store
    let appKey = "bench"
    let base = RFC3339.date(from: "2025-03-01T00:00:00Z")?.timeIntervalSince1970 ?? 0
    let names = ["app_open", "view_item", "add_to_cart", "purchase", "search", "share", "page_view", "tap_banner"]
    let utm = #"{"utm_campaign":"spring","utm_source":"newsletter"}"#
    private var euids: [String] = []

    init(_ settings: Settings) throws {
        self.settings = settings
        handler = try AnalyticsHandler(path: "\(settings.directory)/analytics.sqlite")
        // The plain side gets the service's own events table and index, read from its schema.
        let definitions = try handler.storage.store.read { db in
            try db.rows("SELECT sql FROM sqlite_master WHERE tbl_name = 'events' AND sql IS NOT NULL ORDER BY type DESC")
                .compactMap { $0[0].string }
        }
        plain = try Store(path: "\(settings.directory)/plain.sqlite",
                          migrations: [Migration("plain-1", definitions.joined(separator: ";\n"))])
    }

    var requestCount: Int { settings.events / settings.batch }
    var ingested: Int { requestCount * settings.batch }

    func run() throws -> String {
        for user in 0..<settings.users {
            let reply = try decode(call(.maStart, #"{"app_key":"\#(appKey)","device_id":"device-\#(user)"}"#))
            euids.append(reply["euid"]?.string ?? "")
        }
        let (serviceSeconds, plainSeconds) = try ingest()
        return try report(serviceSeconds: serviceSeconds, plainSeconds: plainSeconds)
    }

    // MARK: ingest

    /// Alternates the two sides round by round, so both see the same machine; returns their seconds.
    private func ingest() throws -> (Double, Double) {
        var serviceSeconds = 0.0
        var plainSeconds = 0.0
        var accepted = 0
        let perRound = (requestCount + settings.rounds - 1) / settings.rounds
        for round in 0..<settings.rounds {
            let last = min(requestCount, (round + 1) * perRound)
            var index = round * perRound
            while index < last {
                let group = index..<min(last, index + settings.credit)
                let batches = group.map(rows(ofRequest:))
                let requests = batches.map { Request(command: Command.maEvents.name, payload: Data(payload($0).utf8)) }

                var clock = Date()
                // As the worker loop runs a batch (`ServiceWorker.answer`): one transaction, each
                // request undone alone only if it fails (`Store.writeBatch`).
                try handler.storage.store.writeBatch { db in
                    for request in requests {
                        let reply = try handler.storage.store.write { db in try handler.handle(.maEvents, request, in: db) }
                        accepted += (reply as? MAEventsAccepted)?.accepted ?? 0
                        _ = WireCodec.successReply(reply)
                    }
                }
                serviceSeconds += Date().timeIntervalSince(clock)

                clock = Date()
                try plain.write { db in
                    for rows in batches {
                        for row in rows {
                            try db.run("INSERT INTO events (euid, name, time, properties, utm) VALUES (?, ?, ?, ?, ?)",
                                       row.euid, row.name, row.time, row.properties, utm)
                        }
                    }
                }
                plainSeconds += Date().timeIntervalSince(clock)
                index = group.upperBound
            }
        }
        guard accepted == ingested else { throw BenchError("only \(accepted) of \(ingested) events accepted") }
        return (serviceSeconds, plainSeconds)
    }

    /// Request `index`: the next batch of one user, 10 s of events. A user's batches come ten minutes
    /// apart, every fifth an hour later instead (a new session); users start spread over the days.
    func rows(ofRequest index: Int) -> [Row] {
        let user = index % settings.users
        let turn = index / settings.users
        let userStart = base + Double(user) * Double(settings.days * 86_400) / Double(settings.users)
        let start = userStart + Double(turn) * 600 + Double(turn / 5) * 3000
        return (0..<settings.batch).map { event in
            let amount = Double((index * 31 + event * 7) % 10_000) / 100
            return Row(euid: euids[user], name: names[(index + event) % names.count],
                       time: start + Double(event) * 10 / Double(settings.batch),
                       properties: #"{"amount":\#(amount),"sku":"sku-\#((index + event) % 977)"}"#)
        }
    }

    func payload(_ rows: [Row]) -> String {
        let events = rows.map { row in
            let time = RFC3339.string(from: Date(timeIntervalSince1970: row.time), fractional: true)
            return #"{"name":"\#(row.name)","properties":\#(row.properties),"time":"\#(time)"}"#
        }
        return #"{"app_key":"\#(appKey)","euid":"\#(rows[0].euid)","events":[\#(events.joined(separator: ","))],"utm":\#(utm)}"#
    }

    // MARK: queries

    private func report(serviceSeconds: Double, plainSeconds: Double) throws -> String {
        let from = RFC3339.string(from: Date(timeIntervalSince1970: base))
        let to = RFC3339.string(from: Date(timeIntervalSince1970: base + Double(settings.days + 1) * 86_400))
        let window = #""app_key":"\#(appKey)","from":"\#(from)","to":"\#(to)""#
        let dayQuery = "{\(window),\"bucket\":\"day\"}"
        let counted = try count(decode(call(.statsEvents, dayQuery)))
        guard counted == ingested else { throw BenchError("the day query counted \(counted) of \(ingested) events") }

        let day = try median(21) { _ = try call(.statsEvents, dayQuery) }
        let named = try median(21) { _ = try call(.statsEvents, "{\(window),\"bucket\":\"day\",\"name\":\"purchase\"}") }
        let hour = try median(21) { _ = try call(.statsEvents, "{\(window),\"bucket\":\"hour\"}") }
        let sessions = try median(5) { _ = try call(.statsEvents, "{\(window),\"bucket\":\"day\",\"name\":\"$session\"}") }
        let scan = try median(3) {
            _ = try plain.read { db in
                try db.rows("SELECT CAST(time / 86400 AS INTEGER), COUNT(*) FROM events WHERE time >= ? AND time < ? GROUP BY 1",
                            base, base + Double(settings.days + 1) * 86_400)
            }
        }
        let days = settings.days + 1
        return """
            bench-analytics: \(ingested) events in \(requestCount) ma.events requests of \(settings.batch), \
            \(settings.credit) requests per commit, \(settings.users) users over \(settings.days) days, \
            \(settings.rounds) alternating rounds; durable WAL databases
            | ingest | seconds | events/s |
            | --- | ---: | ---: |
            | analytics handler (ma.events: decode, check, store, count by hour, sessions) | \(fixed(serviceSeconds, 2)) | \(rate(serviceSeconds)) |
            | plain batched SQLite insert of the same rows | \(fixed(plainSeconds, 2)) | \(rate(plainSeconds)) |
            ratio service / plain insert (events/s): \(fixed(plainSeconds / serviceSeconds, 3))

            | query over the \(ingested) events | median ms |
            | --- | ---: |
            | stats.events, \(days) day buckets, all events | \(fixed(day, 3)) |
            | stats.events, \(days) day buckets, name=purchase | \(fixed(named, 3)) |
            | stats.events, \(days * 24) hour buckets, all events | \(fixed(hour, 3)) |
            | stats.events, \(days) day buckets, name=$session | \(fixed(sessions, 3)) |
            | for comparison: GROUP BY day over the plain table | \(fixed(scan, 3)) |
            """
    }

    private func call(_ command: Command, _ payload: String) throws -> Data {
        try handler.storage.store.write { db in
            WireCodec.successReply(try handler.handle(command, Request(command: command.name, payload: Data(payload.utf8)), in: db))
        }
    }

    private func decode(_ data: Data) throws -> JSONValue { try JSONTreeDecoder().decode(JSONValue.self, from: data) }

    private func count(_ reply: JSONValue) -> Int {
        guard case .array(let buckets)? = reply["buckets"] else { return 0 }
        return buckets.compactMap { $0["count"]?.number }.reduce(0) { $0 + Int($1) }
    }

    /// The median wall time of `body` over `runs` runs, in milliseconds.
    private func median(_ runs: Int, _ body: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let clock = Date()
            try body()
            times.append(Date().timeIntervalSince(clock) * 1000)
        }
        return times.sorted()[runs / 2]
    }

    private func rate(_ seconds: Double) -> String { fixed(Double(ingested) / seconds, 0) }
    private func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
