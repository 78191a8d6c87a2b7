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
}
