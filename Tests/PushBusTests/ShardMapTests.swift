import Foundation
import Runtime
import Testing
import Worker
@testable import GatewayKit

/// `--shards tagging=2,badge=2`: one grammar with one limit, parsed by `ShardMap` for the launcher
/// and the gateway alike; a worker's own place is `--shard-index` of `--shard-count`.
@Suite("shard map")
struct ShardMapTests {
    /// What a program with `flags` makes of `commandLine`, or the usage error it refuses it with.
    func parse<Settings: Options>(_: Settings.Type, _ commandLine: [String], environment: [String: String] = [:]) throws(UsageError) -> Settings {
        var flags = Flags(program: "t", summary: "", flags: Settings.flags)
        try flags.parse(commandLine, environment: environment)
        return try Settings(flags)
    }

    func refusal(_ text: String) -> UsageError? {
        do { _ = try ShardMap(parsing: text) } catch { return error }
        return nil
    }

    @Test func servicesNamedWithTheirCountsTheRestRunOne() throws {
        let map = try ShardMap(parsing: "tagging=2,badge=3")
        #expect(map.count("tagging") == 2 && map.count(.badge) == 3)
        #expect(map.count(.registration) == 1 && map.count("analytics") == 1)
        #expect(map.text == "badge=3,tagging=2", "services in name order")
        #expect(try ShardMap(parsing: map.text) == map)
        #expect(try ShardMap(parsing: "") == ShardMap())
        #expect(try ShardMap(parsing: " tagging = 2 , ,badge=1") == ShardMap(parsing: "tagging=2"), "spaces and empty pairs ignored, one shard is none")
        #expect(ShardMap().text == "")
    }

    @Test func oneToTheLimitShardsAndNothingElse() throws {
        #expect(ShardMap.limit == 1024)
        #expect(try ShardMap(parsing: "tagging=1024").count("tagging") == 1024)
        #expect(try ShardMap(parsing: "tagging=1").count("tagging") == 1)
        for bad in ["tagging=0", "tagging=1025", "tagging=-1", "tagging", "tagging=2=3", "tagging=two", "pusher=2", "=2", "tagging=2;badge=2"] {
            let error = try #require(refusal(bad), "\(bad) is refused")
            #expect(error.message.hasPrefix("--shards takes service=count pairs with 1...1024 shards"), "\(bad): \(error)")
        }
    }

    @Test func theGatewayReadsItsShardsByTheMap() throws {
        #expect(try parse(GatewayOptions.self, []).shards == ShardMap())
        #expect(try parse(GatewayOptions.self, ["--shards", "tagging=1024,badge=2"]).shards == ShardMap(parsing: "badge=2,tagging=1024"))
        #expect(try parse(GatewayOptions.self, [], environment: ["PUSHBUS_SHARDS": "tagging=4"]).shards.count("tagging") == 4)
        let tooMany = try #require(refusal("tagging=1025"))
        #expect(throws: tooMany) { try parse(GatewayOptions.self, ["--shards", "tagging=1025"]) }
    }

    /// The launcher is an executable; it and the gateway refuse the same map with the same line.
    @Test func theLauncherAndTheGatewayRefuseTheSameMapAlike() throws {
        let directory = TestPaths.temporaryDirectory("shards")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let message = try #require(refusal("tagging=1025")).message
        for program in ["pushbus", "gateway"] {
            let run = try RunningProcess(TestPaths.executable(program), ["--data-dir", "\(directory)/data", "--shards", "tagging=1025"],
                                         logDirectory: directory)
            #expect(run.waitForExit(30) == 64, "\(program)")
            #expect(run.output == "\(program): error: \(message)\n", "\(program)")
        }
    }

    @Test func aWorkerIsToldItsIndexAndTheCount() throws {
        #expect(try parse(WorkerOptions.self, []).shard == ShardLayout(index: 0, count: 1))
        let third = try parse(WorkerOptions.self, ["--shard-index", "2", "--shard-count", "3"])
        #expect(third.shard == ShardLayout(index: 2, count: 3))
        #expect(third.shard.serviceName("tagging") == "tagging/2")
        #expect(third.shard.databaseFile("tagging") == "tagging-2-of-3.sqlite")
        let fromEnvironment = try parse(WorkerOptions.self, [], environment: ["PUSHBUS_SHARD_INDEX": "1", "PUSHBUS_SHARD_COUNT": "2"])
        #expect(fromEnvironment.shard == ShardLayout(index: 1, count: 2))
        #expect(try parse(WorkerOptions.self, ["--shard-index", "1023", "--shard-count", "1024"]).shard.count == ShardMap.limit)
    }

    @Test func aWorkersShardOutsideItsCountIsAUsageError() {
        #expect(throws: UsageError("--shard-index must be below --shard-count (2)")) {
            try parse(WorkerOptions.self, ["--shard-index", "2", "--shard-count", "2"])
        }
        #expect(throws: UsageError.self) { try parse(WorkerOptions.self, ["--shard-count", "1025"]) }
        #expect(throws: UsageError.self) { try parse(WorkerOptions.self, ["--shard-count", "0"]) }
        #expect(throws: UsageError.self) { try parse(WorkerOptions.self, ["--shard-index", "-1"]) }
        #expect(throws: UsageError("unknown flag --shards (see --help)"), "a worker's count is --shard-count, never a map") {
            try parse(WorkerOptions.self, ["--shards", "2"])
        }
        #expect(throws: Never.self, "the map in PUSHBUS_SHARDS (the gateway's) is not a worker's") {
            try parse(WorkerOptions.self, [], environment: ["PUSHBUS_SHARDS": "tagging=2"])
        }
    }
}
