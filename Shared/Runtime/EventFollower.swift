import Foundation
import Schema
import ZeroMQ

/// A worker's subscription to other services' events: a SUB socket on the gateway's event-bus
/// output, filtered to the handler's topics. Owned by the worker loop's thread.
final class EventFollower {
    let socket: Socket
    private let logger: Logger

    /// Nil when the handler follows no topic.
    init?(topics: [Topic], endpoint: String, context: Context, logger: Logger) throws {
        guard !topics.isEmpty else { return nil }
        socket = try Socket(context, .sub)
        try socket.setHighWaterMarks(send: EventBus.queueLimit, receive: EventBus.queueLimit)
        for topic in topics { try socket.subscribe(topic.rawValue) }
        try socket.connect(endpoint)
        self.logger = logger
    }

    /// Reads the events queued now, at most `limit`.
    func take(limit: Int = 1024) throws -> [BusEvent] {
        var events: [BusEvent] = []
        while events.count < limit, let message = try socket.receive(wait: false) {
            guard message.count == 2, let topic = message.string(at: 0) else {
                logger.warning("malformed event dropped", ["frames": message.count])
                continue
            }
            events.append(BusEvent(topic: topic, data: message[1]))
        }
        return events
    }

    func close() { socket.close() }
}
