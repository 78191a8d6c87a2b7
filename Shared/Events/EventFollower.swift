import Bus
import Credentials
import Foundation
import Runtime
import Schema
import ZeroMQ

/// A worker's subscription to other services' events: a SUB socket on the gateway's event-bus
/// output, filtered to the handler's topics. Only events their publisher signed get through
/// (`BusEvent.verified`); anything else is dropped and counted. Owned by the worker loop's thread.
public final class EventFollower {
    public let socket: Socket
    private let logger: Logger
    private var verifier: EventVerifier
    /// Events dropped because they were malformed or their proof did not verify.
    public private(set) var refused = 0

    /// Nil when the handler follows no topic.
    public init?(topics: [Topic], endpoint: String, secrets: Secrets, curve: BusCurve?, context: Context, logger: Logger) throws {
        guard !topics.isEmpty else { return nil }
        socket = try Socket(context, .sub)
        try socket.setHighWaterMarks(send: EventBus.queueLimit, receive: EventBus.queueLimit)
        try curve?.secure(socket)
        for topic in topics { try socket.subscribe(topic.rawValue) }
        try socket.connect(endpoint)
        self.logger = logger
        verifier = EventVerifier(secrets: secrets)
    }

    /// Reads the events queued now, at most `limit`.
    public func take(limit: Int = 1024) throws -> [BusEvent] {
        var events: [BusEvent] = []
        while events.count < limit, let message = try socket.receive(wait: false) {
            guard message.count == 3, let topic = message.string(at: 0),
                  let event = BusEvent.verified(topic: topic, data: message[1], proof: message[2], by: &verifier) else {
                refused += 1
                if refused.nonzeroBitCount == 1 { logger.warning("unsigned or forged events dropped", ["count": refused]) }
                continue
            }
            events.append(event)
        }
        return events
    }

    public func close() { socket.close() }
}
