import Credentials
import Foundation
import JSON
import Schema
import SQLite

/// One device command as a service receives it: the command name, its JSON payload, and who
/// signed it.
public struct Request: Sendable {
    public let command: String
    public let payload: Data
    /// The principal whose proof the gateway verified (it forwards the proof as a third frame), or
    /// nil for an unsigned request (only `device.register` may be one).
    public let principal: Principal?
    /// The answers to the handler's `inquiries` for this request, in order (empty when it asked none).
    public var answers: [Inquiry.Answer] = []
    /// What `decode` learned of the payload's `seq`, so the reply can echo it without a second parse.
    private let header = HeaderBox()

    public init(command: String, payload: Data, principal: Principal? = nil) {
        self.command = command
        self.payload = payload
        self.principal = principal
    }

    public init<P: Encodable>(_ command: Command, _ payload: P, principal: Principal? = nil) {
        self.init(command: command.name, payload: WireCodec.encode(payload), principal: principal)
    }

    /// The payload as `T`, or the `CommandError` the client should get.
    public func decode<T: Decodable & Sendable>(_ type: T.Type) throws(CommandError) -> T {
        try decode(decodable: type)
    }

    private func decode<T: Decodable & Sendable>(decodable type: T.Type) throws(CommandError) -> T {
        // A payload kept whole as a tree (analytics) is parsed once, not scanned for its `seq` first.
        let envelope = try WireCodec.decode(Envelope<DecodeOnly<T>>.self, from: payload, readsInPlace: T.self != JSONValue.self)
        header.seq = envelope.seq
        header.isKnown = true
        return envelope.payload.value
    }

    /// The payload as `T`, read straight from its bytes (`FieldReader`) when they are plain, else as
    /// `decode` reads any type: the same value, or the same error.
    public func decode<T: FieldReadable & Sendable>(_ type: T.Type) throws(CommandError) -> T {
        guard let (value, seq) = WireCodec.read(type, from: payload) else { return try decode(decodable: type) }
        header.seq = seq
        header.isKnown = true
        return value
    }

    /// The payload's `seq`: from `decode` when it ran, else read from the payload now.
    public var seq: Int? { header.isKnown ? header.seq : WireCodec.seq(of: payload) }
}

/// Written once by `decode` on the thread that handles the request, read after by the same thread.
private final class HeaderBox: @unchecked Sendable {
    var seq: Int?
    var isKnown = false
}

/// Lets `Envelope` carry a payload type that is only ever decoded.
private struct DecodeOnly<T: Decodable & Sendable>: Codable, Sendable {
    let value: T
    init(from decoder: any Decoder) throws { value = try T(from: decoder) }
    func encode(to encoder: any Encoder) throws {}
}
