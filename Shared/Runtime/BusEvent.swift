import Foundation
import Schema

/// An event as a subscriber receives it: the topic frame and the JSON frame, with the publisher
/// and its sequence number read from the JSON (nil when the event does not carry them).
public struct BusEvent: Sendable {
    public let topic: String
    public let data: Data
    public let publisher: String?
    public let sequence: Int64?

    public init(topic: String, data: Data) {
        self.topic = topic
        self.data = data
        let header = try? JSONTreeDecoder().decode(Header.self, from: data)
        publisher = header?.publisher
        sequence = header?.seq
    }

    public init<Body: EventBody>(_ event: Event<Body>) {
        self.init(topic: Body.topic.rawValue, data: WireCodec.encode(event))
    }

    /// The event with its body as `Body`; throws when the JSON does not match.
    public func decode<Body: EventBody>(_ type: Body.Type) throws -> Event<Body> {
        try JSONTreeDecoder().decode(Event<Body>.self, from: data)
    }

    private struct Header: Decodable {
        let publisher: String
        let seq: Int64
    }
}
