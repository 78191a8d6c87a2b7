import Client
import Credentials
import Foundation
import JSON
import Schema
import ZeroMQ

/// The `apns.send` requests in flight to the senders, through the gateway: a fixed number of
/// clients, each with at most one request out, so the fan-out never has more than
/// `slots × batch` notifications unanswered (the flow control; the gateway spreads the requests
/// over however many `apns` processes run). Owned by the fan-out's thread.
final class SenderPool {
    /// One request out: the deliveries it carries, and when it is given up.
    struct InFlight {
        let deliveries: [FanoutStore.Delivery]
        let deadline: Double
    }

    private var clients: [MajordomoClient]
    private var inFlight: [InFlight?]
    private let signer: Signer
    /// How long a sender may take over one request before its deliveries are queued again.
    let timeout: Double

    init(slots: Int, endpoint: String, context: Context, secrets: Secrets, service: String, serverKey: String?, timeout: Double) throws {
        signer = Signer(service: service, secrets: secrets)
        clients = try (0..<slots).map { _ in
            try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: Int(timeout * 1000), serverKey: serverKey)
        }
        for client in clients { client.signer = signer }
        inFlight = Array(repeating: nil, count: slots)
        self.timeout = timeout
    }

    var freeSlots: Int { inFlight.count { $0 == nil } }
    var isIdle: Bool { freeSlots == inFlight.count }
    var sockets: [Socket] { clients.map(\.socket) }

    /// Sends one `apns.send` on a free slot; false when none is free.
    func send(_ request: ApnsSend, deliveries: [FanoutStore.Delivery], now: Double) throws -> Bool {
        guard let slot = inFlight.firstIndex(where: { $0 == nil }) else { return false }
        try clients[slot].send(Service.apns.name, [Data(Command.apnsSend.name.utf8), WireCodec.encode(request)])
        inFlight[slot] = InFlight(deliveries: deliveries, deadline: now + timeout)
        return true
    }

    /// The answers that have come (each with its deliveries), and the requests given up on.
    func collect(now: Double) throws -> (answered: [(InFlight, Reply<ApnsSent>?)], expired: [InFlight]) {
        var answered: [(InFlight, Reply<ApnsSent>?)] = []
        var expired: [InFlight] = []
        for slot in inFlight.indices {
            guard let request = inFlight[slot] else { continue }
            if let body = try clients[slot].receiveReply() {
                inFlight[slot] = nil
                answered.append((request, body.first.flatMap { try? JSONTreeDecoder().decode(Reply<ApnsSent>.self, from: $0) }))
            } else if now > request.deadline {
                try clients[slot].abandon()
                inFlight[slot] = nil
                expired.append(request)
            }
        }
        return (answered, expired)
    }
}
