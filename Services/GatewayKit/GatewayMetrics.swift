import Bus
import Foundation
import JSON
import Runtime
import Schema

/// What the gateway counts, and the workers' counters it has heard on the bus, as Prometheus text.
/// Every count is by service label; a name a client or publisher made up is counted as `other`, so
/// garbage names cannot grow the counters (or the page) without bound.
struct GatewayMetrics {
    /// One queue as the page shows it: requests waiting, workers, credit in use, credit.
    typealias QueueGauges = (waiting: Int, workers: Int, inUse: Int, credit: Int)

    /// What names outside the known set are counted under.
    static let other = "other"
    /// Other MDP workers' service names counted under their own label, at most.
    static let maxOtherLabels = 64
    /// Names counted under their own label: `device`, the PushBus services and their configured
    /// shards, and the other names that had workers when first seen (up to `maxOtherLabels`).
    private var labels: Set<String>
    private var otherLabels = 0
    /// Service → requests accepted for it.
    private(set) var requests: [String: Int] = [:]
    /// Service → its replies by result code, and the time from each request's arrival to its reply.
    private var answers: [String: Answers] = [:]
    private(set) var eventsForwarded = 0
    /// READYs refused for want of a valid worker credential.
    var workersRefused = 0
    /// Events dropped because their publisher's signature did not verify.
    var eventsRefused = 0
    /// Worker (service name as it announces itself) → its last counters.
    private var workers: [String: WorkerMetrics] = [:]
    /// Requests per second per service over the last interval, for `mmi.topology`.
    private(set) var rates: [String: Double] = [:]
    private var counted: [String: Int] = [:]
    private var countedAt: Int64 = 0

    init(shards: ShardMap = ShardMap()) {
        labels = [Broker.deviceService]
        for service in Service.allCases {
            let count = shards.count(service.name)
            labels.insert(service.name)
            for shard in 0..<count { labels.insert(ShardHash.serviceName(service.name, shard: shard, of: count)) }
        }
    }

    /// The label `service` is counted under. `hasWorkers` is asked only of a name not labelled yet.
    mutating func label(_ service: String, hasWorkers: () -> Bool) -> String {
        if labels.contains(service) { return service }
        guard otherLabels < Self.maxOtherLabels, hasWorkers() else { return Self.other }
        labels.insert(service)
        otherLabels += 1
        return service
    }

    // A name already counted is a label (its own, or `other` under which it counts anyway), so the
    // requests and replies of a counted service are counted with one look-up, not three or four.

    mutating func accepted(_ service: String, hasWorkers: () -> Bool) {
        if let counted = requests.index(forKey: service) {
            requests.values[counted] += 1
        } else {
            requests[label(service, hasWorkers: hasWorkers), default: 0] += 1
        }
    }

    mutating func answered(_ service: String, hasWorkers: () -> Bool, reply: Data?, arrivedAt: Int64, now: Int64) {
        let code = reply.flatMap(ReplySniffer.code) ?? -1
        let seconds = Double(max(0, now - arrivedAt)) / 1000
        if let counted = answers.index(forKey: service) {
            answers.values[counted].count(code: code, seconds: seconds)
        } else {
            answers[label(service, hasWorkers: hasWorkers), default: Answers()].count(code: code, seconds: seconds)
        }
    }

    /// One label's replies.
    private struct Answers {
        /// Result code → replies.
        var codes: [Int: Int] = [:]
        /// Time from arrival to reply.
        var latency = Histogram()

        mutating func count(code: Int, seconds: Double) {
            codes[code, default: 0] += 1
            latency.record(seconds: seconds)
        }
    }

    private static let workerMetricsPrefix = Data(WorkerMetrics.topicPrefix.utf8)

    /// Counts an event whose `publisher` signed it; a worker's counters are kept only from that
    /// worker, and only of a labelled service.
    mutating func forwarded(topic: Data, event: Data, publisher: String, hasWorkers: (String) -> Bool) {
        eventsForwarded += 1
        guard topic.starts(with: Self.workerMetricsPrefix),
              let snapshot = try? JSONTreeDecoder().decode(WorkerMetrics.self, from: event), snapshot.service == publisher,
              label(snapshot.service, hasWorkers: { hasWorkers(snapshot.service) }) != Self.other else { return }
        workers[snapshot.service] = snapshot
    }

    /// Updates the request rates when a second or more has passed since the last sample.
    mutating func sampleRates(now: Int64) {
        guard now - countedAt >= 1000 else { return }
        let seconds = Double(now - countedAt) / 1000
        if countedAt > 0, seconds > 0 {
            rates = Dictionary(uniqueKeysWithValues: requests.map { ($0.key, Double($0.value - (counted[$0.key] ?? 0)) / seconds) })
        }
        counted = requests
        countedAt = now
    }

    /// The broker's queues by label: a queue is made for any name a client sends, so those of names
    /// without a label of their own are summed under `other`, and the page cannot grow with them.
    private func labelled(_ queues: [String: QueueGauges]) -> [String: QueueGauges] {
        var byLabel: [String: QueueGauges] = [:]
        for (service, queue) in queues {
            let label = labels.contains(service) ? service : Self.other
            let sum = byLabel[label] ?? (0, 0, 0, 0)
            byLabel[label] = (sum.waiting + queue.waiting, sum.workers + queue.workers, sum.inUse + queue.inUse, sum.credit + queue.credit)
        }
        return byLabel
    }

    /// The whole page. `queues` is the broker's live view: service → waiting, workers, credit in use, credit.
    func render(queues: [String: QueueGauges]) -> String {
        var page = PrometheusPage()
        page.family("pushbus_gateway_requests_total", "counter", "Requests the gateway accepted, by service.")
        page.family("pushbus_gateway_replies_total", "counter", "Replies sent to clients, by service and result code.")
        page.family("pushbus_gateway_request_seconds", "histogram", "Time from a request's arrival to its reply.")
        page.family("pushbus_gateway_queue_depth", "gauge", "Requests waiting for a worker.")
        page.family("pushbus_gateway_workers", "gauge", "Workers serving the service.")
        page.family("pushbus_gateway_credit_in_use", "gauge", "Requests held by workers, against their credit.")
        page.family("pushbus_gateway_credit", "gauge", "Credit the service's workers announced.")
        page.family("pushbus_gateway_events_forwarded_total", "counter", "Messages the event bus forwarded.")
        page.family("pushbus_gateway_workers_refused_total", "counter", "READYs refused: no valid worker credential.")
        page.family("pushbus_gateway_events_refused_total", "counter", "Events dropped: their publisher's signature did not verify.")
        page.family("pushbus_worker_requests_total", "counter", "Requests a worker answered.")
        page.family("pushbus_worker_replies_total", "counter", "A worker's replies by result code.")
        page.family("pushbus_worker_batches_total", "counter", "Batches a worker committed (group commit).")
        page.family("pushbus_worker_batches_gathered_total", "counter", "Batches a worker held a moment to gather more requests (--gather-us).")
        page.family("pushbus_worker_wal_writer_checkpoints_total", "counter", "Times a worker's store copied its WAL's last frames itself before a transaction, so the WAL could start over (--wal-restart-frames).")
        page.family("pushbus_worker_batch_seconds", "histogram", "Time to run and commit a batch.")
        page.family("pushbus_worker_events_published_total", "counter", "Events a worker published.")
        page.family("pushbus_worker_events_caught_up_total", "counter", "Events a worker missed on the bus and fetched from their publisher.")
        page.family("pushbus_worker_lagging_publishers", "gauge", "Publishers whose missed events a worker could not fetch yet.")

        for (service, n) in requests.sorted(by: { $0.key < $1.key }) {
            page.add("pushbus_gateway_requests_total", PrometheusPage.label("service", service), n)
        }
        let answers = answers.sorted(by: { $0.key < $1.key })
        for (service, answer) in answers {
            for (code, n) in answer.codes.sorted(by: { $0.key < $1.key }) {
                page.add("pushbus_gateway_replies_total", PrometheusPage.label("service", service) + ",code=\"\(code)\"", n)
            }
        }
        for (service, answer) in answers {
            page.samples("pushbus_gateway_request_seconds",
                         answer.latency.lines("pushbus_gateway_request_seconds", labels: PrometheusPage.label("service", service)))
        }
        for (service, queue) in labelled(queues).sorted(by: { $0.key < $1.key }) {
            let label = PrometheusPage.label("service", service)
            page.add("pushbus_gateway_queue_depth", label, queue.waiting)
            page.add("pushbus_gateway_workers", label, queue.workers)
            page.add("pushbus_gateway_credit_in_use", label, queue.inUse)
            page.add("pushbus_gateway_credit", label, queue.credit)
        }
        page.add("pushbus_gateway_events_forwarded_total", "", eventsForwarded)
        page.add("pushbus_gateway_workers_refused_total", "", workersRefused)
        page.add("pushbus_gateway_events_refused_total", "", eventsRefused)
        for (worker, m) in workers.sorted(by: { $0.key < $1.key }) {
            let label = PrometheusPage.label("service", worker)
            page.add("pushbus_worker_requests_total", label, m.requests)
            for (code, n) in m.codes.sorted(by: { $0.key < $1.key }) {
                page.add("pushbus_worker_replies_total", "\(label),code=\"\(code)\"", n)
            }
            page.add("pushbus_worker_batches_total", label, m.batches)
            page.add("pushbus_worker_batches_gathered_total", label, m.batchesGathered)
            page.add("pushbus_worker_wal_writer_checkpoints_total", label, m.walWriterCheckpoints)
            page.samples("pushbus_worker_batch_seconds", m.batchLatency.lines("pushbus_worker_batch_seconds", labels: label))
            page.add("pushbus_worker_events_published_total", label, m.eventsPublished)
            page.add("pushbus_worker_events_caught_up_total", label, m.eventsCaughtUp)
            page.add("pushbus_worker_lagging_publishers", label, m.laggingPublishers)
        }
        return page.text
    }
}
