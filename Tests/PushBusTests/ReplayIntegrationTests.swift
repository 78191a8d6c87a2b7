import Foundation
import Schema
import SQLite
import Testing
@testable import ReplayKit

/// Record real traffic at one gateway, then replay it against a fresh stack and get every reply back.
@Suite("record and replay (integration)", .serialized)
struct ReplayIntegrationTests {
    @Test func aRecordingReplaysWithEveryReplyReproduced() throws {
        let directory = TestPaths.temporaryDirectory("replay")
        let generatedPath = "\(directory)/generated.jsonl"
        let recordedPath = "\(directory)/recorded.jsonl"
        let generator = TrafficGenerator(devices: 200, commands: 400, seed: 11, mix: .tagging, rate: 10_000)
        let generatedCount = try generator.write(to: generatedPath)

        // First run: replay the generated traffic at a gateway that records.
        let first = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--record", recordedPath])
            .start(["registration", "tagging"])
        let firstRun = try Replayer(try Recording.read(generatedPath),
                                    options: ReplayOptions(endpoint: first.endpoint, window: 32, speed: nil, progress: false,
                                                           secrets: first.secrets)).run()
        #expect(firstRun.completed == generatedCount)
        #expect(firstRun.codes == ["0": generatedCount], "\(firstRun.codes)")
        #expect(first.gateway?.terminate() == 0, "a stopped gateway flushes its recording")

        let recorded = try Recording.read(recordedPath)
        #expect(recorded.count == generatedCount)
        #expect(recorded.allSatisfy { $0.reply?["code"] == .number(0) })

        // Second run: a fresh stack must answer every recorded call exactly as recorded.
        let second = try TestStack().start(["registration", "tagging"])
        let replay = try Replayer(recorded, options: ReplayOptions(endpoint: second.endpoint, window: 32, speed: nil,
                                                                   verify: true, progress: false, secrets: second.secrets)).run()
        let verify = try #require(replay.verify)
        #expect(verify.checked == generatedCount)
        #expect(verify.matched == verify.checked, "\(verify.mismatches.prefix(3))")
        #expect(replay.timeouts == 0)
    }

    /// A recording replayed in two runs, the devices registered first and the load after (as the
    /// benchmarks measure the load alone), reaches the devices the first run registered through the
    /// IDs file: tagging learns of no device that registration did not give out.
    @Test func aRecordingReplayedInPartsReachesTheDevicesItRegistered() throws {
        let directory = TestPaths.temporaryDirectory("replay-parts")
        let path = "\(directory)/load.jsonl"
        let devices = 100, commands = 200
        _ = try TrafficGenerator(devices: devices, commands: commands, seed: 5, mix: .tagging, rate: 10_000).write(to: path)
        let calls = try Recording.read(path)
        let registering = calls.prefix { $0.command == "app.create" || $0.command == "device.register" }
        #expect(registering.count == devices + 1)

        let stack = try TestStack().start(["registration", "tagging"])
        let ids = "\(directory)/ids.json"
        let options = ReplayOptions(endpoint: stack.endpoint, window: 32, speed: nil, progress: false, secrets: stack.secrets, idsFile: ids)
        _ = try Replayer(Array(registering), options: options).run()
        let given = try ReplayIDs.read(ids)
        let registered = registering.compactMap { $0.reply?["registration_id"]?.string }
        #expect(registered.count == devices && registered.allSatisfy { given[$0] != nil && given[$0] != $0 }, "\(given.count) IDs kept")

        let load = try Replayer(Array(calls.dropFirst(registering.count)), options: options).run()
        #expect(load.codes == ["0": commands], "\(load.codes)")
        // The devices no command touched reach tagging by registration's events, which may come
        // after the load's last reply (on a busy machine, well after).
        let tagging = try Database(path: "\(stack.dataDirectory)/tagging.sqlite")
        func known() throws -> Int { try tagging.value("SELECT count(*) FROM devices").int ?? 0 }
        _ = try eventually(30) { try known() >= devices }
        let count = try known()
        #expect(count == devices, "tagging knows \(count) devices")

        try Data("[1]".utf8).write(to: URL(fileURLWithPath: ids))
        #expect(throws: ReplayIDsError.self) { try Replayer([], options: options) }
        try Data(#"{"a":"1","a":"2","b":"3"}"#.utf8).write(to: URL(fileURLWithPath: ids))
        #expect(try ReplayIDs.read(ids) == ["a": "2", "b": "3"], "of a key given twice the last counts")
        try Data(#"{"a":1}"#.utf8).write(to: URL(fileURLWithPath: ids))
        #expect(throws: ReplayIDsError.self) { try ReplayIDs.read(ids) }
    }

    /// A place the IDs file cannot be written is refused before anything is sent: otherwise the run
    /// registers every device and then loses the IDs they were given.
    @Test func anIDsFileThatCannotBeWrittenIsRefusedBeforeTheRun() throws {
        let directory = TestPaths.temporaryDirectory("replay-ids")
        for path in ["\(directory)/missing/ids.json", directory] {
            let options = ReplayOptions(endpoint: "tcp://127.0.0.1:1", progress: false, idsFile: path)
            #expect(throws: ReplayIDsError.self) { try Replayer(registrations(1, apart: 1, app: "x"), options: options) }
        }
    }

    @Test func theRecordedPaceIsKept() throws {
        let stack = try TestStack().start(["registration"])
        _ = try stack.client().json("app.create", ["name": "pace".json, "app_key": "pace".json])
        let calls = registrations(5, apart: 100, app: "pace")
        let started = Date()
        let summary = try Replayer(calls, options: ReplayOptions(endpoint: stack.endpoint, speed: 1, progress: false,
                                                                 secrets: stack.secrets)).run()
        #expect(summary.completed == 5)
        // The client's own CPU (the whole test process here, so only its presence is checkable).
        #expect(summary.clientCPUSeconds > 0)
        #expect(Date().timeIntervalSince(started) >= 0.4, "the last call waits for its recorded time, 400 ms in")
    }

    /// Calls due every 0.5 ms: poll takes whole milliseconds, and a client that rounds the wait down
    /// spins through every gap, taking a core from the stack it measures.
    @Test func aPacedReplayWaitsInsteadOfSpinning() throws {
        let stack = try TestStack().start(["registration"])
        _ = try stack.client().json("app.create", ["name": "paced".json, "app_key": "paced".json])
        let calls = registrations(1600, apart: 0.5, app: "paced")
        let wallStart = Date()
        let cpuStart = threadCPUSeconds()
        let summary = try Replayer(calls, options: ReplayOptions(endpoint: stack.endpoint, speed: 1, progress: false,
                                                                 secrets: stack.secrets)).run()
        let cpu = threadCPUSeconds() - cpuStart
        let wall = Date().timeIntervalSince(wallStart)
        #expect(summary.completed == 1600)
        #expect(wall >= 0.75, "the last call is due 800 ms in")
        #expect(cpu < wall / 2, "the replaying thread used \(cpu) s of CPU in \(wall) s")
    }

    /// `count` registrations of new iOS devices of `app`, recorded `apart` milliseconds apart.
    private func registrations(_ count: Int, apart milliseconds: Double, app: String) -> [RecordedCall] {
        (0..<count).map { n in
            RecordedCall(t: Double(n) * milliseconds, command: "device.register",
                         payload: .object(["app_key": app.json, "platform": "ios".json]))
        }
    }

    private func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    @Test func aGatewayThatStopsAnsweringEndsTheRunInsteadOfEveryWindowTimingOut() throws {
        let stack = try TestStack().start(["registration"])
        _ = try stack.client().json("app.create", ["name": "gone".json, "app_key": "gone".json])
        let calls = registrations(2000, apart: 1, app: "gone")
        _ = stack.services["registration"]?.terminate()   // the gateway holds the requests until its deadline
        _ = stack.gateway?.terminate()                     // and then nothing answers at all
        let started = Date()
        #expect(throws: ReplayError.self) {
            try Replayer(calls, options: ReplayOptions(endpoint: stack.endpoint, window: 16, speed: nil, timeoutMilliseconds: 300,
                                                       progress: false, secrets: stack.secrets)).run()
        }
        #expect(Date().timeIntervalSince(started) < 5, "2000 calls in windows of 16 would take 37 s of timeouts")
    }
}
