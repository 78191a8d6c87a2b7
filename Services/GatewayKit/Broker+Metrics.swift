import Foundation
import JSON
import Majordomo
import Schema

/// The `/metrics` page and the topology the gateway reports.
extension Broker {
    // MARK: metrics and topology

    /// Refreshes the `/metrics` page (and the request rates, once a second).
    func publishMetrics(now: Int64) {
        metrics.sampleRates(now: now)
        metricsServer?.publish(metrics.render(queues: queueView()), at: now)
    }

    func queueView() -> [String: GatewayMetrics.QueueGauges] {
        var view: [String: GatewayMetrics.QueueGauges] = [:]
        for (name, queue) in services {
            let held = queue.workers.compactMap { workers[$0] }
            view[name] = (queue.waitingCount, held.count, held.reduce(0) { $0 + $1.inFlight.count }, held.reduce(0) { $0 + $1.credit })
        }
        return view
    }

    /// `mmi.topology`: every service with its workers, queue, credit in use and request rate, as JSON.
    func topology() -> Data {
        let entries = queueView().sorted { $0.key < $1.key }.map { name, queue -> JSONValue in
            .object(["service": .string(name), "workers": .number(Double(queue.workers)), "queue": .number(Double(queue.waiting)),
                     "credit_in_use": .number(Double(queue.inUse)), "credit": .number(Double(queue.credit)),
                     "requests_total": .number(Double(metrics.requests[name] ?? 0)),
                     "rate": .number((metrics.rates[name] ?? 0).rounded())])
        }
        return WireCodec.encode(JSONValue.object(["services": .array(entries)]))
    }
}
