import Foundation

/// The wire's JSON decoder: a strict parser and a Decoder over its tree (or, for the plain documents
/// most requests are, `ScanDecoder` over the bytes themselves), throwing the same
/// `DecodingError` cases as Foundation's `JSONDecoder` (so `WireCodec` tells a missing field from a
/// wrong type the same way), at a fraction of the cost. `WireCodec.decode` uses it.
public struct JSONTreeDecoder {
    /// Whether a document in the plain subset is read in place. Off for a value that is read whole
    /// as a `JSONValue` inside a wrapper (a payload kept as a tree), which the parser reads once.
    public let readsInPlace: Bool

    public init(readsInPlace: Bool = true) { self.readsInPlace = readsInPlace }

    /// A `T` from one JSON document. Throws `DecodingError` as Foundation's decoder does: data corrupted
    /// for bytes that are not JSON (or a number that does not fit), key not found, value not found for
    /// a null, type mismatch. Never traps on any input.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        // A request in the plain subset is read in place; the rest, and any that fails, from the tree.
        if readsInPlace, T.self != JSONValue.self, let value = data.withUnsafeBytes({ ScanDecoder.decode(type, from: $0) }) {
            return value
        }
        return try decodeFromTree(type, from: data)
    }

    /// `decode` without the in-place reading: what it gives for every document.
    func decodeFromTree<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let tree: JSONValue
        do throws(JSONParser.Failure) {
            tree = try JSONParser.parse(data)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not valid JSON: \(error.reason) at byte \(error.offset)"))
        }
        return try TreeDecoder(tree, path: []).decode(T.self)
    }
}
