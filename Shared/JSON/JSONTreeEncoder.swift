import Foundation

/// A JSON encoder for the wire: the same bytes as Foundation's `JSONEncoder` with `.sortedKeys`
/// and `.withoutEscapingSlashes`, at a fraction of the cost, since it skips the generic machinery
/// for the scalars that make up nearly every reply and event. `WireCodec.encode` uses it.
public struct JSONTreeEncoder {
    public init() {}

    /// `value` as compact JSON. Throws `EncodingError.invalidValue` for a number that is not finite.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        var writer = JSONWriter()
        writer.write(try TreeEncoder.tree(of: value, path: []))
        return Data(writer.bytes)
    }

    /// `value` as `encode(value)` writes it, as text, straight from the tree: no Encoder and no sorted
    /// copy of it when its objects' keys are in order already. Throws as `encode` does.
    public func text(_ value: JSONValue) throws -> String {
        var writer = JSONWriter()
        try writer.writeAsWritten(value, [])
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
