import Foundation
import JSON
import Runtime
import Schema
import WireTime
import ZeroMQ

/// A subscriber to `local.fired` on the bus that notes when each event arrived.
final class FiredCollector {
    let socket: Socket
    /// identifier → (arrival, fired_at), Unix seconds.
    private(set) var arrivals: [String: [(arrived: Double, firedAt: Double)]] = [:]

    init(context: Context, endpoint: String) throws {
        socket = try Socket(context, .sub)
        try socket.setHighWaterMarks(send: 0, receive: 0)
        try socket.subscribe("local.fired")
        try socket.connect(endpoint)
    }

    deinit { socket.close() }

    /// Receives until `count` events for `identifier` have arrived or `deadline` passes; returns how many did.
    @discardableResult
    func collect(_ identifier: String, count: Int, until deadline: Date) throws -> Int {
        var poller = Poller([socket])
        while (arrivals[identifier]?.count ?? 0) < count && Date() < deadline {
            guard try poller.poll(timeout: 50).contains(socket) else { continue }
            while let message = try socket.receive(wait: false) {
                let arrived = Date().timeIntervalSince1970
                let event = try JSONTreeDecoder().decode(Event<LocalFiredEvent>.self, from: message[1]).body
                let firedAt = RFC3339.date(from: event.firedAt)?.timeIntervalSince1970 ?? .nan
                arrivals[event.identifier, default: []].append((arrived, firedAt))
            }
        }
        return arrivals[identifier]?.count ?? 0
    }
}
