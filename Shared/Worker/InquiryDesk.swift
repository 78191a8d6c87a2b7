import Client
import Foundation
import Majordomo
import Runtime
import Schema
import ZeroMQ

/// The requests waiting for other services' answers to their inquiries, and the pool that asks:
/// owned by the worker's thread, which polls `sockets`, calls `service` and serves what is `ready`
/// as a batch of its own.
final class InquiryDesk {
    private struct Parked {
        let client: Data
        let body: [Data]
        var answers: [Inquiry.Answer?]
    }

    private let pool: BusPool
    private var parked: [Int: Parked] = [:]
    private var next = 0
    private var ready: [(client: Data, body: [Data], answers: [Inquiry.Answer])] = []

    init(pool: BusPool) { self.pool = pool }

    var sockets: [Socket] { pool.sockets }
    var nextDeadline: Int64? { pool.nextDeadline }
    var waiting: Int { parked.count }

    /// Asks `inquiries` for the request `body` from `client`.
    func park(client: Data, body: [Data], inquiries: [Inquiry]) {
        let id = next
        next += 1
        parked[id] = Parked(client: client, body: body, answers: Array(repeating: nil, count: inquiries.count))
        for (index, inquiry) in inquiries.enumerated() {
            let submitted = pool.submit(BusPool.Job(service: MDP.deviceService, body: [Data(inquiry.command.name.utf8), inquiry.payload]) {
                [unowned self] reply in answered(id, index, Inquiry.Answer(command: inquiry.command, reply: reply))
            })
            if !submitted { answered(id, index, Inquiry.Answer(command: inquiry.command, reply: nil)) }
        }
    }

    /// Takes the answers that came and gives up on late ones.
    func service(now: Int64) { pool.service(now: now) }

    /// The requests whose every inquiry has its answer, taken.
    func takeReady() -> [(client: Data, body: [Data], answers: [Inquiry.Answer])] {
        defer { ready = [] }
        return ready
    }

    private func answered(_ id: Int, _ index: Int, _ answer: Inquiry.Answer) {
        guard var request = parked[id] else { return }
        request.answers[index] = answer
        let answers = request.answers.compactMap { $0 }
        guard answers.count == request.answers.count else {
            parked[id] = request
            return
        }
        parked[id] = nil
        ready.append((request.client, request.body, answers))
    }
}
