/// A value a decoder reads scalars from, each kind its own way. Which types are scalars is told
/// here, once, for the tree's decoder (`TreeDecoder.Scalar`) and the in-place one (`ScanDecoder.Scalar`),
/// so the two read exactly the same types. A method throws its decoder's mismatch error when the
/// value is not of that kind; `path` is built only then.
protocol ScalarSource {
    func string(_ path: @autoclosure () -> [any CodingKey]) throws -> String
    func bool(_ path: @autoclosure () -> [any CodingKey]) throws -> Bool
    func integer<I: FixedWidthInteger>(_ type: I.Type, _ path: @autoclosure () -> [any CodingKey]) throws -> I
    /// A number's value, read as a `type`.
    func number(_ type: Any.Type, _ path: @autoclosure () -> [any CodingKey]) throws -> Double
    func tree() throws -> JSONValue
    /// A list of strings (tags, registration IDs) in one pass, with the errors `Array.init(from:)`
    /// through an unkeyed container would throw.
    func strings(_ path: @autoclosure () -> [any CodingKey]) throws -> [String]
}

extension ScalarSource {
    /// `T` read straight from this value, or nil when `T` is not a scalar type. Scalars are told
    /// apart by their type, which costs a comparison, not a dynamic cast. The narrower integers are
    /// here too: their own `init(from:)` asks the single-value container for their type, which
    /// would come back to the decoder, again and again.
    func scalar<T>(_ type: T.Type, _ path: @autoclosure () -> [any CodingKey]) throws -> T? {
        if T.self == String.self { return unsafeBitCast(try string(path()), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(path()), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, path()), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try number(type, path()), to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try integer(Int64.self, path()), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try integer(Int32.self, path()), to: T.self) }
        if T.self == UInt64.self { return unsafeBitCast(try integer(UInt64.self, path()), to: T.self) }
        if T.self == UInt.self { return unsafeBitCast(try integer(UInt.self, path()), to: T.self) }
        if T.self == JSONValue.self { return unsafeBitCast(try tree(), to: T.self) }
        if T.self == [String].self { return unsafeBitCast(try strings(path()), to: T.self) }
        if T.self == Float.self { return unsafeBitCast(Float(try number(type, path())), to: T.self) }
        if T.self == Int8.self { return unsafeBitCast(try integer(Int8.self, path()), to: T.self) }
        if T.self == Int16.self { return unsafeBitCast(try integer(Int16.self, path()), to: T.self) }
        if T.self == UInt8.self { return unsafeBitCast(try integer(UInt8.self, path()), to: T.self) }
        if T.self == UInt16.self { return unsafeBitCast(try integer(UInt16.self, path()), to: T.self) }
        if T.self == UInt32.self { return unsafeBitCast(try integer(UInt32.self, path()), to: T.self) }
        return nil
    }
}
