import Foundation
import JSON

/// The one place JSON payloads become values and back. A decoding failure becomes a `CommandError`
/// whose code tells a missing field (6001) from a malformed message or wrong type (6017).
public enum WireCodec {
    /// Largest payload accepted, checked before parsing.
    public static let maxPayloadBytes = 256 * 1024

    /// `readsInPlace` as `JSONTreeDecoder`'s: false for a payload read whole as a `JSONValue`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, readsInPlace: Bool = true) throws(CommandError) -> T {
        guard data.count <= maxPayloadBytes else {
            throw .invalid("payload of \(data.count) bytes is over the \(maxPayloadBytes)-byte limit")
        }
        guard let first = data.first(where: { !Self.isWhitespace($0) }), first == UInt8(ascii: "{") else {
            throw .invalid("malformed payload: expected a JSON object")
        }
        return try refusing { try JSONTreeDecoder(readsInPlace: readsInPlace).decode(T.self, from: data) }
    }

    /// What `read` makes of a payload, its errors given as `decode` gives them: a decoding error as
    /// the field it names and what it must be, any other as malformed.
    static func refusing<T>(_ read: () throws -> T) throws(CommandError) -> T {
        do {
            return try read()
        } catch let error as DecodingError {
            throw describe(error)
        } catch let error as CommandError {
            throw error
        } catch {
            throw .invalid("malformed payload")
        }
    }

    /// A payload of a type that reads its own fields, and its `seq`, as `decode(Envelope<T>.self, from:)`
    /// gives them; nil when that cannot be said without decoding (bytes outside the plain subset, a
    /// field of another type, a payload over the limit), and `decode` then gives the value or the error.
    public static func read<T: FieldReadable>(_ type: T.Type, from data: Data) -> (value: T, seq: Int?)? {
        guard data.count <= maxPayloadBytes else { return nil }
        return FieldReader.read(data) { fields throws(FieldReader.Decline) in
            (try T(fields: fields), try fields.integer(Header.CodingKeys.seq))
        }
    }

    public static func encode<T: Encodable>(_ value: T) -> Data {
        if let writable = value as? any FieldWritable { return written(writable) }
        return encodedThroughEncoder(value)
    }

    /// `value` through its `encode(to:)`, for a type that does not write its own fields.
    private static func encodedThroughEncoder<T: Encodable>(_ value: T) -> Data {
        do {
            return try JSONTreeEncoder().encode(value)
        } catch {
            // Our own value types always encode; a failure is a broken invariant, but never crash a server.
            return Data(#"{"code":6024,"message":"reply could not be encoded"}"#.utf8)
        }
    }

    /// A value that writes its own fields, as `encode` would write it.
    static func written(_ value: some FieldWritable) -> Data { FieldWriter.object(value) }

    /// An error reply frame for `error`, echoing `seq`.
    public static func errorReply(_ error: CommandError, seq: Int? = nil) -> Data {
        encode(Reply<Empty>(error: error, seq: seq))
    }

    /// The `seq` of a payload, if the payload is a JSON object that carries an integer one.
    public static func seq(of payload: Data) -> Int? {
        (try? decode(Header.self, from: payload))?.seq
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// A decoding error as the reply says it: which field is wrong and what it must be, never the
    /// decoder's words (its type names, its numbers).
    private static func describe(_ error: DecodingError) -> CommandError {
        switch error {
        case .keyNotFound(let key, let context):
            return .empty("\(path(context.codingPath + [key])) is missing")
        case .valueNotFound(let type, let context):
            return .empty("\(path(context.codingPath)) must be \(typeName(type)), not null")
        case .typeMismatch(let type, let context):
            return .invalid("\(path(context.codingPath)) must be \(typeName(type))")
        case .dataCorrupted(let context):
            if let underlying = context.underlyingError as? CommandError { return underlying }
            if context.codingPath.isEmpty { return .invalid("malformed payload: not valid JSON") }
            if let expected = context.underlyingError as? ExpectedValue { return .invalid("\(path(context.codingPath)) must be \(expected.description)") }
            return .invalid("\(path(context.codingPath)) is not valid")
        @unknown default:
            return .invalid("malformed payload")
        }
    }

    /// `content.badge`, `tags[1]`: the field's keys as the payload names them.
    private static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce(into: "") { text, key in
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is any FixedWidthInteger.Type: "an integer"
        case is any BinaryFloatingPoint.Type: "a number"
        case is Bool.Type: "a boolean"
        default: "\(type)".lowercased().contains("array") ? "an array" : "an object"
        }
    }
}

extension WireCodec {
    /// A success reply frame: `body`'s fields with `code: 0` and the request's `seq`.
    public static func successReply(_ body: any Encodable, seq: Int? = nil) -> Data {
        guard let writable = body as? any FieldWritable else { return encodedThroughEncoder(SuccessReply(body: body, seq: seq)) }
        var fields = FieldWriter()
        SuccessReply.write(writable, seq: seq, to: &fields)
        return fields.data()
    }
}

private struct SuccessReply: Encodable {
    let body: any Encodable
    let seq: Int?

    enum CodingKeys: String, CodingKey { case code, seq }

    /// Its fields as `encode(to:)` encodes them, for a body that writes its own.
    static func write(_ body: some FieldWritable, seq: Int?, to fields: inout FieldWriter) {
        body.write(fields: &fields)
        fields.write(0, for: CodingKeys.code)
        fields.writeIfPresent(seq, for: CodingKeys.seq)
    }

    func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(0, forKey: .code)
        try container.encodeIfPresent(seq, forKey: .seq)
    }
}
