import Foundation
import JSON
import Testing

/// The REST API against clients that hold connections open and trickle their requests (slowloris):
/// a held connection costs the api a socket, not a thread, one address cannot take more than its
/// share, and a request that does not arrive whole within the deadline is cut.
@Suite("REST API under slow clients (integration)", .serialized)
struct ApiSlowClientTests {
    @Test func theApiAnswersWhile1100SlowConnectionsAreHeld() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let client = try stack.client()
        _ = try client.json("app.create", ["name": "slowapp".json, "app_key": "slowapp".json])
        let deadline = 8
        let api = try ApiServer(stack: stack, extra: ["--request-deadline-s", String(deadline), "--per-address", "64",
                                                      "--handler-threads", "16"])
        let authorization = "Basic " + Data("slowapp:\(stack.secrets.masterSecret(appKey: "slowapp"))".utf8).base64EncodedString()
        let threadsBefore = try Self.threads(of: api.process.process.processIdentifier)

        // 1,100 slow connections from 22 addresses (50 each, under the per-address limit), each
        // sending one more header line a second.
        let slow = try SlowClients(port: api.port, count: 1100, perAddress: 50)
        defer { slow.close() }
        let started = Date()
        slow.trickle()
        #expect(slow.openCount() == 1100, "the api refused slow connections within its limits")

        // Meanwhile ordinary requests from another address are answered, and quickly.
        var latencies: [Double] = []
        while Date().timeIntervalSince(started) < Double(deadline) - 3 {
            let before = Date()
            let answer = try HTTPGet.fetch(port: api.port, path: "/v4/tags", timeout: 5, headers: ["Authorization": authorization])
            latencies.append(Date().timeIntervalSince(before))
            #expect(answer.status == 200, "\(answer)")
            if latencies.count % 20 == 0 { slow.trickle() }
        }
        latencies.sort()
        #expect(latencies.count >= 20 && latencies[latencies.count * 99 / 100] < 1.0,
                "\(latencies.count) requests, slowest \(latencies.last ?? -1) s")
        let threadsHeld = try Self.threads(of: api.process.process.processIdentifier)
        print("api under 1,100 slow connections: \(latencies.count) requests answered, p50 \(latencies[latencies.count / 2]) s, "
              + "p99 \(latencies[latencies.count * 99 / 100]) s; threads \(threadsBefore) -> \(threadsHeld)")
        #expect(threadsHeld <= threadsBefore + 2, "threads \(threadsBefore) → \(threadsHeld) while 1,100 connections are held")
        #expect(slow.openCount() == 1100)

        // One address past its share: the server closes what is over the limit.
        let greedy = try SlowClients(port: api.port, count: 100, perAddress: 100, firstHost: 40)
        defer { greedy.close() }
        greedy.trickle()
        usleep(300_000)
        let greedyOpen = greedy.openCount()
        #expect(greedyOpen <= 64, "one address holds \(greedyOpen) connections")

        // Past the deadline every trickling request is cut, however regular its bytes.
        let cutBy = Date().addingTimeInterval(Double(deadline) + 5)
        while Date() < cutBy && slow.openCount() > 0 {
            slow.trickle()
            usleep(500_000)
        }
        #expect(slow.openCount() == 0, "\(slow.openCount()) slow connections outlived the \(deadline)-s request deadline")
        #expect(try HTTPGet.fetch(port: api.port, path: "/v4/tags", timeout: 5, headers: ["Authorization": authorization]).status == 200)
    }

    static func threads(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
              let count = Int(line.split(separator: "\t").last ?? "") else { throw StackError("no thread count for \(pid)") }
        return count
    }
}
