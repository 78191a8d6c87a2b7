import Client
import Foundation
import JSON
import Runtime
import Majordomo
import Schema
import Testing
import ZeroMQ

/// `/metrics` and `/healthz` on the real gateway, and `mmi.topology` behind `pushctl status`.
@Suite("metrics (integration)", .serialized)
struct MetricsTests {
    @Test func countersMoveWithTraffic() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let client = try stack.client()
        #expect(try HTTPGet.fetch(port: stack.metricsPort, path: "/healthz") == (200, "ok\n"))
        let before = try HTTPGet.fetch(port: stack.metricsPort, path: "/metrics").body

        for n in 0..<20 {
            let id = try client.register(deviceID: "m\(n)")
            _ = try client.json("tags.add", ["app_key": "app1".json, "registration_id": id.json, "tags": .array(["vip".json])])
        }
        _ = try client.json("tags.add", ["app_key": "app1".json, "registration_id": "0a0a".json, "tags": .array(["bad tag".json])])

        // Workers report every two seconds; wait, bounded, until the tagging worker's counters show the load.
        let page = try stack.metricsPage(once: #"pushbus_worker_requests_total{service="tagging"}"#, reaches: 21)

        #expect(metricSample(page, #"pushbus_gateway_requests_total{service="tagging"}"#) >= 21)
        #expect(metricSample(page, #"pushbus_gateway_requests_total{service="tagging"}"#) > metricSample(before, #"pushbus_gateway_requests_total{service="tagging"}"#))
        #expect(metricSample(page, #"pushbus_gateway_replies_total{service="tagging",code="6005"}"#) == 1)
        #expect(metricSample(page, #"pushbus_gateway_request_seconds_count{service="tagging"}"#) >= 21)
        #expect(metricSample(page, #"pushbus_gateway_workers{service="registration"}"#) == 1)
        #expect(metricSample(page, #"pushbus_worker_requests_total{service="tagging"}"#) >= 21)
        #expect(metricSample(page, #"pushbus_worker_replies_total{service="tagging",code="0"}"#) >= 20)
        #expect(metricSample(page, #"pushbus_worker_events_published_total{service="registration"}"#) >= 20)
        #expect(metricSample(page, "pushbus_gateway_events_forwarded_total") > 0)
        #expect(page.contains("# TYPE pushbus_gateway_request_seconds histogram"))
        // The exposition format wants each family's samples together, right after its TYPE line.
        var family = ""
        for line in page.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") { family = String(line.split(separator: " ")[2]); continue }
            guard !line.hasPrefix("#") else { continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let base = ["_bucket", "_sum", "_count"].reduce(name) { $0.hasSuffix($1) && $0 != family ? String($0.dropLast($1.count)) : $0 }
            #expect(base == family, "\(line) sits under \(family)")
        }
        #expect(try HTTPGet.fetch(port: stack.metricsPort, path: "/nothing").status == 404)

        let topology = try client.request("mmi.topology", [])
        let services = try JSONDecoder().decode(JSONValue.self, from: topology[0])["services"]
        guard case .array(let entries)? = services else { Issue.record("no services in \(topology)"); return }
        let tagging = entries.first { $0["service"] == "tagging".json }
        #expect(tagging?["workers"] == .number(1))
        #expect((tagging?["requests_total"]?.number ?? 0) >= 21)
    }

    /// Kubernetes restarts the gateway when `/healthz` stops answering, so connections that never
    /// finish their request must not be able to starve it.
    @Test func healthzAnswersWithin1sWhile10000HalfOpenConnectionsAreHeld() throws {
        let flooded = 10_000
        let openFiles = OpenFileLimit.raiseToHardLimit()
        try #require(openFiles > flooded + 256, "this process may open only \(openFiles) files")
        let stack = try TestStack().start([])
        let gateway = try #require(stack.gateway?.process.processIdentifier)
        try #require(eventually { (try? HTTPGet.fetch(port: stack.metricsPort, path: "/healthz", timeout: 1))?.status == 200 })

        let flood = try HalfOpenFlood(port: stack.metricsPort, count: flooded)
        defer { flood.close() }
        #expect(flood.connected == flooded)
        #expect(try eventually(5) { openDescriptors(gateway) >= flooded }, "the gateway holds the flood")
        let held = openDescriptors(gateway)
        let started = Date()
        let health = try HTTPGet.fetch(port: stack.metricsPort, path: "/healthz", timeout: 1)
        let seconds = Date().timeIntervalSince(started)
        #expect(health == (200, "ok\n"))
        #expect(seconds < 1, "/healthz took \(seconds) s")
        print("healthz under \(flood.connected) half-open connections: \(Int(seconds * 1000)) ms, "
              + "gateway fds \(held), \(residentKilobytes(gateway) / 1024) MiB resident")
        #expect(try eventually(10) { openDescriptors(gateway) < 1000 }, "the gateway lets go of idle connections by itself")
    }

    /// The resident memory of process `pid`, in KiB.
    func residentKilobytes(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// How many files process `pid` holds open.
    func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    @Test func madeUpServiceNamesAreCountedUnderOneLabel() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "300"]).start()
        let caller = try Socket.dealer(stack.context, connect: stack.endpoint)
        for n in 0..<300 { try caller.send(ClientMessage(service: "made-up-\(n)", strings: ["x"]).frames) }
        var poller = Poller([caller])
        var replies = 0
        while replies < 300, try poller.poll(timeout: 5000).contains(caller) {
            while try caller.receive(wait: false) != nil { replies += 1 }
        }
        #expect(replies == 300, "each answered 6002 at its deadline")
        let page = try stack.metricsPage(once: #"pushbus_gateway_replies_total{service="other",code="6002"}"#, reaches: 300)
        #expect(metricSample(page, #"pushbus_gateway_requests_total{service="other"}"#) == 300)
        #expect(metricSample(page, #"pushbus_gateway_replies_total{service="other",code="6002"}"#) == 300)
        #expect(!page.contains("made-up"), "no label per made-up name: \(page.utf8.count) bytes")
    }
}
