import Foundation
import Runtime
import Schema

/// What the gateway counts, and the workers' counters it has heard on the bus, as Prometheus text.
struct GatewayMetrics {
    /// Service → requests accepted for it.
    private(set) var requests: [String: Int] = [:]
    /// Service → result code → replies.
    private var replies: [String: [Int: Int]] = [:]
    /// Service → time from arrival to reply.
    private var latency: [String: Histogram] = [:]
    private(set) var eventsForwarded = 0
    /// Worker (service name as it announces itself) → its last counters.
    private var workers: [String: WorkerMetrics] = [:]
    /// Requests per second per service over the last interval, for `mmi.topology`.
    private(set) var rates: [String: Double] = [:]
    private var counted: [String: Int] = [:]
    private var countedAt: Int64 = 0

    mutating func accepted(_ service: String) { requests[service, default: 0] += 1 }

    mutating func answered(_ service: String, reply: Data?, arrivedAt: Int64, now: Int64) {
        replies[service, default: [:]][reply.flatMap(ReplySniffer.code) ?? -1, default: 0] += 1
        latency[service, default: Histogram()].record(seconds: Double(max(0, now - arrivedAt)) / 1000)
    }

    mutating func forwarded(topic: Data, event: Data) {
        eventsForwarded += 1
        guard topic.starts(with: Data(WorkerMetrics.topicPrefix.utf8)),
              let snapshot = try? JSONTreeDecoder().decode(WorkerMetrics.self, from: event) else { return }
        workers[snapshot.service] = snapshot
    }

    /// Updates the request rates when a second or more has passed since the last sample.
    mutating func sampleRates(now: Int64) {
        guard now - countedAt >= 1000 else { return }
        let seconds = Double(now - countedAt) / 1000
        if countedAt > 0, seconds > 0 {
            rates = requests.mapValues { _ in 0 }.merging(requests.map { ($0.key, Double($0.value - (counted[$0.key] ?? 0)) / seconds) }) { $1 }
        }
        counted = requests
        countedAt = now
    }

    /// The whole page. `queues` is the broker's live view: service → waiting, workers, credit in use, credit.
    func render(queues: [String: (waiting: Int, workers: Int, inUse: Int, credit: Int)]) -> String {
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
        }
        family("pushbus_gateway_requests_total", "counter", "Requests the gateway accepted, by service.")
        for (service, n) in requests.sorted(by: { $0.key < $1.key }) { lines.append("pushbus_gateway_requests_total{service=\"\(service)\"} \(n)") }
        family("pushbus_gateway_replies_total", "counter", "Replies sent to clients, by service and result code.")
        for (service, codes) in replies.sorted(by: { $0.key < $1.key }) {
            for (code, n) in codes.sorted(by: { $0.key < $1.key }) {
                lines.append("pushbus_gateway_replies_total{service=\"\(service)\",code=\"\(code)\"} \(n)")
            }
        }
        family("pushbus_gateway_request_seconds", "histogram", "Time from a request's arrival to its reply.")
        for (service, histogram) in latency.sorted(by: { $0.key < $1.key }) {
            lines += histogram.lines("pushbus_gateway_request_seconds", labels: "service=\"\(service)\"")
        }
        family("pushbus_gateway_queue_depth", "gauge", "Requests waiting for a worker.")
        family("pushbus_gateway_workers", "gauge", "Workers serving the service.")
        family("pushbus_gateway_credit_in_use", "gauge", "Requests held by workers, against their credit.")
        family("pushbus_gateway_credit", "gauge", "Credit the service's workers announced.")
        for (service, queue) in queues.sorted(by: { $0.key < $1.key }) {
            let label = "{service=\"\(service)\"}"
            lines.append("pushbus_gateway_queue_depth\(label) \(queue.waiting)")
            lines.append("pushbus_gateway_workers\(label) \(queue.workers)")
            lines.append("pushbus_gateway_credit_in_use\(label) \(queue.inUse)")
            lines.append("pushbus_gateway_credit\(label) \(queue.credit)")
        }
        family("pushbus_gateway_events_forwarded_total", "counter", "Messages the event bus forwarded.")
        lines.append("pushbus_gateway_events_forwarded_total \(eventsForwarded)")

        family("pushbus_worker_requests_total", "counter", "Requests a worker answered.")
        family("pushbus_worker_replies_total", "counter", "A worker's replies by result code.")
        family("pushbus_worker_batches_total", "counter", "Batches a worker committed (group commit).")
        family("pushbus_worker_batch_seconds", "histogram", "Time to run and commit a batch.")
        family("pushbus_worker_events_published_total", "counter", "Events a worker published.")
        family("pushbus_worker_events_caught_up_total", "counter", "Events a worker missed on the bus and fetched from their publisher.")
        family("pushbus_worker_lagging_publishers", "gauge", "Publishers whose missed events a worker could not fetch yet.")
        for (worker, m) in workers.sorted(by: { $0.key < $1.key }) {
            let label = "service=\"\(worker)\""
            lines.append("pushbus_worker_requests_total{\(label)} \(m.requests)")
            for (code, n) in m.codes.sorted(by: { $0.key < $1.key }) { lines.append("pushbus_worker_replies_total{\(label),code=\"\(code)\"} \(n)") }
            lines.append("pushbus_worker_batches_total{\(label)} \(m.batches)")
            lines += m.batchLatency.lines("pushbus_worker_batch_seconds", labels: label)
            lines.append("pushbus_worker_events_published_total{\(label)} \(m.eventsPublished)")
            lines.append("pushbus_worker_events_caught_up_total{\(label)} \(m.eventsCaughtUp)")
            lines.append("pushbus_worker_lagging_publishers{\(label)} \(m.laggingPublishers)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
