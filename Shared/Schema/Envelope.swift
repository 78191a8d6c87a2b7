/// A request payload as it travels: the command's own fields plus the optional `seq` every payload
/// may carry, echoed in the reply, and `ts` (Unix seconds) for signed requests.
public struct Envelope<Payload: Codable & Sendable>: Codable, Sendable {
    public var seq: Int?
    public var payload: Payload

    public init(_ payload: Payload, seq: Int? = nil) {
        self.payload = payload
        self.seq = seq
    }

    enum CodingKeys: String, CodingKey { case seq }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decodeIfPresent(Int.self, forKey: .seq)
        payload = try Payload(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(seq, forKey: .seq)
    }
}

extension Envelope: Equatable where Payload: Equatable {}

/// Just the fields every payload shares, read before the command's own type is known.
public struct Header: Codable, Equatable, Sendable {
    public var seq: Int?
    public init(seq: Int? = nil) { self.seq = seq }
    enum CodingKeys: String, CodingKey { case seq }
}
