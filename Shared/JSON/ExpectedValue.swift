/// What a value must be when it has the right JSON type but not a value its Swift type holds: a
/// number with a fraction or past an integer's range, a name outside an enumeration. It is the
/// underlying error of the `DecodingError.dataCorrupted` thrown for such a value, so whoever answers
/// can say what the field must be in its own words rather than the decoder's.
public struct ExpectedValue: Error, Equatable, Sendable {
    /// A phrase: "an integer", "one of hour, day".
    public let description: String

    public init(_ description: String) { self.description = description }

    /// The error for a value at `path` that is not `expected`; `detail` is for people reading a log.
    public static func error(at path: [any CodingKey], _ expected: String, detail: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: detail, underlyingError: ExpectedValue(expected)))
    }

    /// One of `T`'s cases, read as its raw string; any other string is an error naming every case.
    public static func oneOf<T: RawRepresentable & CaseIterable>(_ type: T.Type, from decoder: any Decoder) throws -> T where T.RawValue == String {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let value = T(rawValue: name) else {
            throw error(at: decoder.codingPath, "one of " + T.allCases.map(\.rawValue).joined(separator: ", "),
                        detail: "\(name) is not a \(T.self)")
        }
        return value
    }
}
