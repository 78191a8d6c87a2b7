import Foundation
import JSON
import Testing
@testable import Worker

/// When a worker's batch waits for more requests (`BatchGathering`): only while it is busy, never
/// for a lone request. Times are monotonic microseconds.
@Suite("batch gathering")
struct BatchGatheringTests {
    /// A gathering that has seen batches of `size` taken every `interval` µs, `count` times, from `start`.
    func gathering(window: Int64 = 500, batches size: Int, every interval: Int64, count: Int = 60) -> (BatchGathering, Int64) {
        var gathering = BatchGathering(window: window)
        var now: Int64 = 1_000_000
        for _ in 0..<count {
            gathering.record(size, at: now, lastTaken: now)
            now += interval
        }
        return (gathering, now)
    }

    @Test func aBusyWorkersSmallBatchWaitsTheWindow() {
        // 5 requests every 400 µs: 12,500 a second, so 500 µs brings about 6 more.
        let (busy, now) = gathering(batches: 5, every: 400)
        #expect(abs(busy.rate * 1_000_000 - 12_500) < 1)
        #expect(busy.wait(taken: 5, at: now) == 500)
        #expect(busy.wait(taken: 2, at: now - 300) == 500, "2 taken 100 µs after the last take")
    }

    @Test func aLoneRequestNeverWaits() {
        let (busy, now) = gathering(batches: 5, every: 400)
        #expect(busy.wait(taken: 1, at: now) == 0)
        let (sequential, later) = gathering(batches: 1, every: 50)
        #expect(sequential.wait(taken: 1, at: later) == 0, "one request at a time, however fast")
    }

    @Test func aQuietWorkerOrAFullBatchDoesNotWait() {
        // 2 requests every 2 ms: 1,000 a second, so 500 µs would bring one more at best.
        let (quiet, now) = gathering(batches: 2, every: 2000)
        #expect(quiet.wait(taken: 2, at: now) == 0)
        let (busy, later) = gathering(batches: 5, every: 400)
        #expect(busy.wait(taken: BatchGathering.fullBatch, at: later) == 0)
        #expect(busy.wait(taken: BatchGathering.fullBatch - 1, at: later) == 500)
    }

    @Test func theFirstBatchAfterAPauseDoesNotWait() {
        let (busy, now) = gathering(batches: 5, every: 400)
        // The smoothed rate still says busy; the 3 requests that came in 50 ms say otherwise.
        #expect(busy.wait(taken: 3, at: now + 50_000) == 0)
    }

    @Test func aFreshWorkerOrAWindowOfZeroNeverWaits() {
        #expect(BatchGathering(window: 500).wait(taken: 10, at: 1_000_000) == 0, "no rate known yet")
        let (off, now) = gathering(window: 0, batches: 5, every: 400)
        #expect(off.wait(taken: 5, at: now) == 0)
    }

    @Test func theRateCountsTheRequestsTakenWhileABatchWaited() {
        // Batches first taken every 1,000 µs, each 3 at first and 9 in all after its wait: 9,000 a second.
        var gathering = BatchGathering(window: 500)
        var now: Int64 = 1_000_000
        for _ in 0..<40 {
            gathering.record(9, at: now, lastTaken: now + 500)
            now += 1000
        }
        #expect(abs(gathering.rate * 1_000_000 - 9_000) < 1)
    }
}

/// The same through the real tagging worker and gateway: a client that sends one request at a
/// time is never held up, concurrent clients are gathered, and every request is answered and kept
/// (424 tag sets on 64 devices); a batch that cannot grow under its credit never waits.
@Suite("batch gathering (integration)", .serialized)
struct BatchGatheringIntegrationTests {
    func gathered(_ stack: TestStack, once requests: Double) throws -> Double {
        let page = try stack.metricsPage(once: #"pushbus_worker_requests_total{service="tagging"}"#, reaches: requests)
        #expect(metricSample(page, #"pushbus_worker_requests_total{service="tagging"}"#) >= requests)
        return metricSample(page, #"pushbus_worker_batches_gathered_total{service="tagging"}"#)
    }

    /// The reply codes, sorted, of `clients` clients sending at once (`atOnce`): client c adds tag
    /// "t<n>" for n below `perClient` to its share of `devices`, in turn.
    func tagConcurrently(_ stack: TestStack, _ devices: [String], clients: Int, perClient: Int) -> [Int] {
        let codes = Codes()
        let devicesEach = devices.count / clients
        atOnce(clients, into: codes) { client in
            let own = Array(devices[client * devicesEach ..< (client + 1) * devicesEach])
            let connection = try stack.client()
            for n in 0..<perClient {
                let reply = try connection.json("tags.add", ["app_key": "app1".json, "registration_id": own[n % devicesEach].json,
                                                             "tags": .array(["t\(n)".json])])
                codes.add(reply.code ?? -1)
            }
        }
        return codes.all
    }

    @Test func oneAtATimeNeverWaitsAndConcurrentClientsAreGathered() throws {
        let stack = try TestStack().start(["registration"])
        // A window long enough that even a slow machine's concurrent clients fall inside it.
        try stack.startService("tagging", extra: ["--gather-us", "5000"])
        let setup = try stack.client()
        // 8 clients of 8 devices each; no device is sent more than the 10 tag sets in 10 s it may.
        let clients = 8, devicesEach = 8, perClient = 48
        let devices = try (0..<clients * devicesEach).map { try setup.register(deviceID: "gather\($0)") }

        for n in 0..<40 {
            let reply = try setup.json("tags.add", ["app_key": "app1".json, "registration_id": devices[n].json,
                                                    "tags": .array(["alone\(n)".json])])
            #expect(reply.code == 0)
        }
        #expect(try gathered(stack, once: 40) == 0, "a request sent alone is never held up")

        let codes = tagConcurrently(stack, devices, clients: clients, perClient: perClient)
        #expect(codes == Array(repeating: 0, count: clients * perClient))
        #expect(try gathered(stack, once: Double(40 + clients * perClient)) > 0, "8 clients at once were gathered")
        for (index, device) in devices.enumerated() {
            let tags = try setup.json("tags.get", ["app_key": "app1".json, "registration_id": device.json])["tags"]
            let expected = Set((0..<perClient).filter { $0 % devicesEach == index % devicesEach }.map { "t\($0)" }
                               + (index < 40 ? ["alone\(index)"] : []))
            guard case .array(let items)? = tags else { Issue.record("no tags for \(device)"); continue }
            #expect(Set(items.compactMap(\.string)) == expected, "every tag of \(device) kept")
        }
    }

    @Test func aBatchAsLargeAsItsCreditAllowsDoesNotWait() throws {
        let stack = try TestStack().start(["registration"])
        // A credit of 4 lets a batch take 2 requests: with 2 taken, waiting could bring nothing.
        try stack.startService("tagging", extra: ["--gather-us", "5000", "--credit", "4"])
        let setup = try stack.client()
        let devices = try (0..<32).map { try setup.register(deviceID: "full\($0)") }
        let codes = tagConcurrently(stack, devices, clients: 8, perClient: 24)
        #expect(codes == Array(repeating: 0, count: 8 * 24))
        #expect(try gathered(stack, once: 8 * 24) == 0)
    }
}
