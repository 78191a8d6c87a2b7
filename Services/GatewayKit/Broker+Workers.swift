import Bus
import Credentials
import Foundation
import Majordomo
import Runtime
import Schema
import ZeroMQ

/// The worker side of the broker: admitting a worker's READY, its replies and heartbeats, and what
/// happens at a deadline or when a worker goes quiet (every request it held is answered 6002).
extension Broker {
    func handleWorker(_ sender: Data, _ command: WorkerMessage) {
        if case .ready(let service, let credit, let credential) = command {
            guard workers[sender] == nil, !service.hasPrefix(MDP.mmiPrefix), service != Self.deviceService else {
                removeWorker(sender, reason: "invalid READY")
                send(to: sender, WorkerMessage.disconnect)
                return
            }
            if case .failure(let refusal) = authenticator.admitWorker(service: service, credit: credit, credential: credential,
                                                                      peer: Array(sender), now: Int64(Date().timeIntervalSince1970),
                                                                      nowMilliseconds: Clock.milliseconds()) {
                logger.warning("worker refused", ["service": String(service.prefix(64)), "reason": refusal.description])
                metrics.workersRefused += 1
                send(to: sender, WorkerMessage.disconnect)
                return
            }
            guard services[service] != nil || services.count < Self.maxServices else {
                send(to: sender, WorkerMessage.disconnect)
                return
            }
            workers[sender] = WorkerRecord(identity: sender, service: service, credit: credit ?? 1, expiry: expiry())
            queue(for: service).workers.append(sender)
            logger.info("worker joined", ["service": service, "credit": credit ?? 1, "workers": services[service]?.workers.count ?? 0])
            dispatch(service)
            return
        }
        guard let worker = workers[sender] else {
            // Not an admitted worker: nothing it sends is acted on. A worker that outlived a gateway
            // restart is told to reconnect (and proves itself again); anyone else learns nothing.
            strangers.note(now: Clock.milliseconds()) { count in
                logger.warning("worker messages from peers that are not admitted workers dropped", ["count": count])
            }
            if command != .disconnect { send(to: sender, WorkerMessage.disconnect) }
            return
        }
        worker.expiry = expiry()
        switch command {
        case .reply(let token, let body):
            guard let id = RequestToken.decode(token), worker.inFlight.remove(id) != nil else {
                logger.debug("reply for an unknown request dropped")
                return
            }
            if let request = requests.removeValue(forKey: id) { answer(request, body) }
            dispatch(worker.service)
        case .heartbeat:
            break
        case .disconnect:
            removeWorker(sender, reason: "worker disconnected")
        case .ready, .request:
            removeWorker(sender, reason: "protocol error")
            send(to: sender, WorkerMessage.disconnect)
        }
    }

    func nextDeadline() -> Int64? { deadlines.values.compactMap { $0.first?.at }.min() }

    /// Answers 6002 to every request whose deadline has passed. A worker still holding one keeps
    /// the credit until it replies (the late reply is dropped) or dies.
    func expireRequests(now: Int64) {
        for timeout in deadlines.keys {
            while let due = deadlines[timeout]?.first, due.at <= now {
                _ = deadlines[timeout]?.popFirst()
                if let request = requests.removeValue(forKey: due.id) {
                    answer(request, CommandError(.timeout, "no answer from \(request.target) in time, retry"))
                }
            }
        }
    }

    func heartbeatWorkers(now: Int64) {
        for (identity, worker) in workers where worker.expiry < now {
            removeWorker(identity, reason: "heartbeat expired")
        }
        forgetIdleServices()
        for identity in workers.keys {
            send(to: identity, WorkerMessage.heartbeat)
        }
    }

    /// Drops services with no worker and nothing waiting, so names seen once do not pile up.
    func forgetIdleServices() {
        for name in Array(services.keys) {
            services[name]?.dropAnswered(isPending: isPending)
            if let queue = services[name], queue.workers.isEmpty, queue.waitingCount == 0 { services[name] = nil }
        }
    }

    /// Forgets a worker; the requests it held are answered 6002 at once, never left to hang.
    func removeWorker(_ identity: Data, reason: String) {
        guard let worker = workers.removeValue(forKey: identity) else { return }
        services[worker.service]?.workers.removeAll { $0 == identity }
        logger.notice("worker removed", ["service": worker.service, "reason": reason, "in_flight": worker.inFlight.count])
        for id in worker.inFlight {
            guard let request = requests.removeValue(forKey: id) else { continue }
            answer(request, CommandError(.timeout, "the \(worker.service) worker was lost, retry"))
        }
    }

    func expiry() -> Int64 {
        Clock.milliseconds() + Int64(options.heartbeatMilliseconds * options.liveness)
    }
}
