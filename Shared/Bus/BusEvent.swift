import Credentials
import Foundation
import JSON
import Schema

/// An event as a subscriber receives it: the topic frame and the JSON frame, with the publisher,
/// its sequence number and epoch read from the JSON (nil when the event does not carry them).
public struct BusEvent: Sendable {
    public let topic: String
    public let data: Data
    public let publisher: String?
    public let sequence: Int64?
    public let epoch: String?

    public init(topic: String, data: Data) {
        self.topic = topic
        self.data = data
        let header = try? FieldReader.decode(Header.self, from: data)
        publisher = header?.publisher
        sequence = header?.seq
        epoch = header?.epoch
    }

    public init<Body: EventBody>(_ event: Event<Body>) {
        self.init(topic: Body.topic.rawValue, data: WireCodec.encode(event))
    }

    /// The event in `topic` and `data` when `proof` shows its publisher signed it, or nil: a proof
    /// that does not verify, or one by another service than the event names as its publisher.
    public static func verified(topic: String, data: Data, proof: Data, by verifier: inout EventVerifier) -> BusEvent? {
        guard let signer = verifier.publisher(topic: topic, event: data, proof: proof) else { return nil }
        let event = BusEvent(topic: topic, data: data)
        return event.publisher == signer ? event : nil
    }

    /// The event with its body as `Body`; throws when the JSON does not match.
    public func decode<Body: EventBody>(_ type: Body.Type) throws -> Event<Body> {
        try JSONTreeDecoder().decode(Event<Body>.self, from: data)
    }

    /// The event with a body that reads its own fields, read in place when it is plain.
    public func decode<Body: EventBody & FieldReadable>(_ type: Body.Type) throws -> Event<Body> {
        try FieldReader.decode(Event<Body>.self, from: data)
    }

    private struct Header: FieldReadable {
        let publisher: String
        let seq: Int64
        let epoch: String?

        init(fields: FieldReader) throws(FieldReader.Decline) {
            guard let publisher = try fields.string(CodingKeys.publisher), let seq = try fields.integer(CodingKeys.seq) else {
                throw FieldReader.Decline()
            }
            self.publisher = publisher
            self.seq = Int64(seq)
            epoch = try fields.string(CodingKeys.epoch)
        }
    }
}
