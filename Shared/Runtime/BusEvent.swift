import Foundation
import Schema

/// An event as a subscriber receives it: the topic frame and the JSON frame.
public struct BusEvent: Sendable {
    public let topic: String
    public let data: Data

    public init(topic: String, data: Data) {
        self.topic = topic
        self.data = data
    }

    public init<Body: EventBody>(_ event: Event<Body>) {
        self.init(topic: Body.topic.rawValue, data: WireCodec.encode(event))
    }

    /// The event with its body as `Body`; throws when the JSON does not match.
    public func decode<Body: EventBody>(_ type: Body.Type) throws -> Event<Body> {
        try JSONDecoder().decode(Event<Body>.self, from: data)
    }
}
