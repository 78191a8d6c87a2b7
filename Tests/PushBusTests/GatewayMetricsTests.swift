import Foundation
import Runtime
import Testing
@testable import GatewayKit

/// The gateway's counters are by service label, and names nobody serves cannot add labels.
@Suite("gateway metrics")
struct GatewayMetricsTests {
    func count(_ metrics: inout GatewayMetrics, _ service: String, hasWorkers: Bool = false) {
        metrics.accepted(service, hasWorkers: { hasWorkers })
        metrics.answered(service, hasWorkers: { hasWorkers }, reply: Data(#"{"code":6002}"#.utf8), arrivedAt: 0, now: 5)
    }

    @Test func madeUpServiceNamesAreCountedAsOther() throws {
        var metrics = GatewayMetrics(shards: try ShardMap(parsing: "tagging=2"))
        for name in ["device", "registration", "tagging", "tagging/0", "tagging/1"] { count(&metrics, name) }
        for n in 0..<10_000 { count(&metrics, "made-up-\(n)") }
        count(&metrics, "tagging/7")
        #expect(metrics.requests == ["device": 1, "registration": 1, "tagging": 1, "tagging/0": 1, "tagging/1": 1, "other": 10_001])
        let page = metrics.render(queues: [:])
        #expect(!page.contains("made-up"))
        #expect(page.utf8.count < 20_000, "the page does not grow with the names: \(page.utf8.count) bytes")
    }

    @Test func aMetricsAddressThatIsNotIPv4IsAGatewayError() {
        #expect(throws: GatewayError.metricsAddress("::1:5556")) { try MetricsServer(host: "::1", port: 5556) }
        #expect(GatewayError.metricsAddress("x").description == "--metrics takes an IPv4 host:port, not x")
    }

    @Test func otherWorkersServicesGetTheirOwnLabelUpToALimit() {
        var metrics = GatewayMetrics()
        for n in 0..<100 { count(&metrics, "echo-\(n)", hasWorkers: true) }
        count(&metrics, "echo-0", hasWorkers: false)
        #expect(metrics.requests["echo-0"] == 2, "a labelled name keeps its label")
        #expect(metrics.requests.count == GatewayMetrics.maxOtherLabels + 1)
        #expect(metrics.requests["other"] == 100 - GatewayMetrics.maxOtherLabels)
    }

    /// A name first counted as `other` (no workers then) gets its own label once it has workers, and
    /// its replies are counted under the label its requests are.
    @Test func aNameCountedAsOtherGetsItsLabelOnceItHasWorkers() {
        var metrics = GatewayMetrics()
        count(&metrics, "echo")
        count(&metrics, "echo", hasWorkers: true)
        count(&metrics, "echo", hasWorkers: false)
        #expect(metrics.requests == ["other": 1, "echo": 2])
        let page = metrics.render(queues: [:])
        #expect(page.contains(#"pushbus_gateway_replies_total{service="echo",code="6002"} 2"#), "\(page)")
        #expect(page.contains(#"pushbus_gateway_replies_total{service="other",code="6002"} 1"#), "\(page)")
        #expect(page.contains(#"pushbus_gateway_request_seconds_count{service="echo"} 2"#), "\(page)")
    }

    /// A queue is made for any service name a client sends: the page sums the queues of names with
    /// no label under `other`, and a name's quotes and line breaks cannot end a sample and forge one.
    @Test func queuesOfMadeUpNamesCannotForgeOrGrowThePage() {
        let metrics = GatewayMetrics()
        var queues: [String: GatewayMetrics.QueueGauges] = ["tagging": (2, 1, 0, 10)]
        queues["a\"} 0\npushbus_gateway_events_refused_total 123456\n# x{service=\"b"] = (1, 0, 0, 0)
        for n in 0..<1_000 { queues["made-up-\(n)"] = (1, 0, 0, 0) }
        let page = metrics.render(queues: queues)
        #expect(!page.contains("123456"), "\(page)")
        #expect(!page.contains("made-up"))
        #expect(page.contains(#"pushbus_gateway_queue_depth{service="other"} 1001"#))
        #expect(page.contains(#"pushbus_gateway_queue_depth{service="tagging"} 2"#))
        #expect(page.utf8.count < 20_000, "the page does not grow with the names: \(page.utf8.count) bytes")
    }

    /// A label value is escaped as the Prometheus text format says.
    @Test func labelValuesAreEscaped() {
        #expect(PrometheusPage.label("service", #"a"b\c"# + "\nd") == #"service="a\"b\\c\nd""#)
        #expect(PrometheusPage.label("service", "tagging/0") == #"service="tagging/0""#)
    }
}
