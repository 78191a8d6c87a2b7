import BadgeKit
import Bus
import Client
import Credentials
import Foundation
import Runtime
import SQLite
import Schema
import Worker
import ZeroMQ

/// `badge.apply "+1"` to every seeded device in batches, three ways side by side in one run, each on its
/// own copy of the same seeded database with durable commits: a plain batched SQLite update of the
/// same rows, the badge handler in this process, and the real `gateway` + `badge` executables over TCP.
struct BadgeBench {
    static let summary = "Benchmark: badge.apply \"+1\" to many devices in batches, against a plain batched SQLite update."
    let settings: Settings
    let directory = NSTemporaryDirectory() + "bench-badge-\(UUID().uuidString.prefix(8))"
    let appKey = "bench"
    var devices: Int { settings.devices }
    var batch: Int { settings.batch }
    var rounds: Int { settings.rounds }
    var basePort: Int { settings.basePort }

    /// From flags; each property's initial value is its flag's default.
    struct Settings: Options {
        var devices = 100_000
        var batch = 1000
        var rounds = 5
        var basePort = 7655

        init() {}

        static let options: [Option<Settings>] = [
            .int("devices", \.devices, in: 1...10_000_000, help: "Devices seeded and pushed to in each round."),
            .int("batch", \.batch, in: 1...BadgeHandler.maxDevicesPerApply, help: "Registration IDs per badge.apply (at most 1000)."),
            .int("rounds", \.rounds, in: 1...100, help: "Rounds; each runs the three ways one after the other."),
            .int("base-port", \.basePort, in: 1024...65_000, help: "Gateway ports: base (requests), base+2 (events in), base+3 (events out)."),
        ]
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ids = (0..<devices).map { _ in RandomKey.hex(bytes: 10) }
        let batches = stride(from: 0, to: ids.count, by: batch).map { Array(ids[$0..<min($0 + batch, ids.count)]) }
        let seed = try seedDatabase(ids)
        print("badge.apply \"+1\" to \(devices) devices in batches of \(batch), \(rounds) rounds, durable commits")

        let plain = try PlainUpdate(path: try copy(seed, to: "plain"))
        let handler = try BadgeHandler(path: try copy(seed, to: "handler"))
        let stackDirectory = directory + "/stack"
        try FileManager.default.createDirectory(atPath: stackDirectory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: seed, toPath: stackDirectory + "/badge.sqlite")
        let stack = try BenchStack(basePort: basePort, dataDirectory: stackDirectory)
        defer { stack.stop() }
        let client = try stack.client()

        var table: [[String: Double]] = []
        for round in 1...rounds {
            let msgID = "push-\(round)"
            var rates: [String: Double] = [:]
            rates["plain"] = try measure(batches) { try plain.increment($0) }
            rates["handler"] = try measure(batches) { try apply($0, msgID: msgID, handler: handler) }
            rates["retry"] = try measure(batches) { try apply($0, msgID: msgID, handler: handler) }
            rates["gateway"] = try measure(batches) { try apply($0, msgID: msgID, client: client) }
            table.append(rates)
            print(String(format: "round %d: plain %.0f devices/s, handler %.0f (ratio %.2f), retry %.0f, through gateway %.0f (ratio %.2f)",
                         round, rates["plain"]!, rates["handler"]!, rates["handler"]! / rates["plain"]!,
                         rates["retry"]!, rates["gateway"]!, rates["gateway"]! / rates["plain"]!))
        }
        try verify(plain: plain, handler: handler, stackDatabase: stackDirectory + "/badge.sqlite", stack: stack)
        let median = { (key: String) in table.map { $0[key]! }.sorted()[table.count / 2] }
        let ratios = { (key: String) in table.map { $0[key]! / $0["plain"]! }.sorted()[table.count / 2] }
        print(String(format: "median: plain %.0f devices/s; handler %.0f devices/s = %.2f of plain; retry of the same push %.0f devices/s; "
                     + "through gateway %.0f devices/s = %.2f of plain",
                     median("plain"), median("handler"), ratios("handler"), median("retry"), median("gateway"), ratios("gateway")))
    }

    /// Devices per second for one pass over every batch.
    private func measure(_ batches: [[String]], _ body: ([String]) throws -> Void) throws -> Double {
        let start = Clock.milliseconds()
        for ids in batches { try body(ids) }
        let elapsed = max(1, Clock.milliseconds() - start)
        return Double(batches.reduce(0) { $0 + $1.count }) / (Double(elapsed) / 1000)
    }

    /// One request in one transaction, then the outbox handed over, as the worker loop does with credit 1.
    private func apply(_ ids: [String], msgID: String, handler: BadgeHandler) throws {
        let request = Request(.badgeApply, BadgeApply(appKey: appKey, registrationIDs: ids, badge: "+1", msgID: msgID))
        let reply = try handler.storage.store.write { db in try handler.handle(.badgeApply, request, in: db) }
        guard let values = reply as? BadgeValues, values.values.count == ids.count else {
            throw BenchError("handler reply does not cover the batch")
        }
        _ = handler.storage.outbox.takeCommitted()
    }

    private func apply(_ ids: [String], msgID: String, client: MajordomoClient) throws {
        let reply = try client.call(.badgeApply, BadgeApply(appKey: appKey, registrationIDs: ids, badge: "+1", msgID: msgID),
                                    as: BadgeValues.self)
        guard reply.code.isSuccess, reply.body?.values.count == ids.count else {
            throw BenchError("gateway reply \(reply.code): \(reply.message ?? "values do not cover the batch")")
        }
    }

    /// Every device ends at `rounds` in all three databases: the retries changed nothing.
    private func verify(plain: PlainUpdate, handler: BadgeHandler, stackDatabase: String, stack: BenchStack) throws {
        stack.stop()
        let wrong = "SELECT COUNT(*) FROM devices WHERE badge != ?"
        let counts = [
            try plain.store.read { try $0.value(wrong, rounds).int ?? -1 },
            try handler.storage.store.read { try $0.value(wrong, rounds).int ?? -1 },
            try Store(path: stackDatabase, migrations: []).read { try $0.value(wrong, rounds).int ?? -1 },
        ]
        guard counts == [0, 0, 0] else { throw BenchError("devices not at \(rounds): \(counts)") }
        print("checked: every device reads \(rounds) in all three databases (retries changed nothing)")
    }

    /// A badge database that knows `ids`, as if each had been announced by `device.registered`.
    private func seedDatabase(_ ids: [String]) throws -> String {
        let path = directory + "/seed.sqlite"
        let handler = try BadgeHandler(path: path)
        try handler.storage.store.write { db in
            for (sequence, id) in ids.enumerated() {
                let body = DeviceRegisteredEvent(appKey: appKey, registrationID: id, platform: "ios")
                try handler.apply(BusEvent(Event(publisher: "registration", sequence: Int64(sequence + 1),
                                                 time: RFC3339.string(from: Date()), body: body)), in: db)
            }
        }
        return path
    }

    private func copy(_ seed: String, to name: String) throws -> String {
        let path = "\(directory)/\(name).sqlite"
        try FileManager.default.copyItem(atPath: seed, toPath: path)
        return path
    }
}

/// The baseline: the same rows incremented with one prepared UPDATE each, one transaction per batch,
/// on a database opened as the service opens its own (durable commits, the same page cache).
struct PlainUpdate {
    let store: Store

    init(path: String) throws {
        store = try Store(path: path, migrations: [])
    }

    func increment(_ ids: [String]) throws {
        try store.write { db in
            for id in ids { try db.run("UPDATE devices SET badge = MIN(99999, badge + 1) WHERE registration_id = ?", id) }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
