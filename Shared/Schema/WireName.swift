import JSON

/// An enumeration of names a payload gives as strings (`kind`, `op`, `bucket`): a name outside it
/// is refused with every name it may be, rather than with the decoder's words.
public protocol WireName: RawRepresentable<String>, CaseIterable, Decodable {}

extension WireName {
    public init(from decoder: any Decoder) throws { self = try ExpectedValue.oneOf(Self.self, from: decoder) }
}
