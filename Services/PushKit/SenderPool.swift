import Client
import Credentials
import Foundation
import JSON
import Schema
import ZeroMQ

/// The `apns.send` (and `live.deliver`) requests in flight to the senders, through the gateway: a
/// fixed number of clients, each with at most one request out, so the fan-out never has more than
/// `slots × batch` notifications unanswered (the flow control; the gateway spreads the requests
/// over however many `apns` and `channel` processes run). Owned by the fan-out's thread.
final class SenderPool {
    /// One request out: its command, the deliveries it carries, and when it is given up.
    struct InFlight {
        let command: Command
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

    /// Sends one `apns.send` or `live.deliver` on a free slot; false when none is free.
    func send<Request: Encodable>(_ command: Command, _ request: Request, deliveries: [FanoutStore.Delivery], now: Double) throws -> Bool {
        guard let slot = inFlight.firstIndex(where: { $0 == nil }) else { return false }
        try clients[slot].send(command.service.name, [Data(command.name.utf8), WireCodec.encode(request)])
        inFlight[slot] = InFlight(command: command, deliveries: deliveries, deadline: now + timeout)
        return true
    }

    /// The answers that have come (each with its deliveries; nil when it was unreadable), and the
    /// requests given up on.
    func collect(now: Double) throws -> (answered: [(InFlight, Data?)], expired: [InFlight]) {
        var answered: [(InFlight, Data?)] = []
        var expired: [InFlight] = []
        for slot in inFlight.indices {
            guard let request = inFlight[slot] else { continue }
            if let body = try clients[slot].receiveReply() {
                inFlight[slot] = nil
                answered.append((request, body.first))
            } else if now > request.deadline {
                try clients[slot].abandon()
                inFlight[slot] = nil
                expired.append(request)
            }
        }
        return (answered, expired)
    }
}
