/// A reply as it travels: `code` (0 = success), `message` on failure, the request's `seq`, and on
/// success the command's reply fields, all in one JSON object.
public struct Reply<Body: Codable & Sendable>: Codable, Sendable {
    public var code: ResultCode
    public var message: String?
    public var seq: Int?
    /// Present when `code` is success.
    public var body: Body?

    public init(_ body: Body, seq: Int? = nil) {
        self.code = .success
        self.body = body
        self.seq = seq
    }

    public init(error: CommandError, seq: Int? = nil) {
        self.code = error.code
        self.message = error.message
        self.seq = seq
    }

    enum CodingKeys: String, CodingKey { case code, message, seq }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(ResultCode.self, forKey: .code)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        seq = try container.decodeIfPresent(Int.self, forKey: .seq)
        body = code.isSuccess ? try Body(from: decoder) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        try body?.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encodeIfPresent(seq, forKey: .seq)
    }

    /// The error this reply carries, if it is one.
    public var error: CommandError? {
        code.isSuccess ? nil : CommandError(code, message ?? "error \(code.rawValue)")
    }
}

extension Reply: Equatable where Body: Equatable {}
