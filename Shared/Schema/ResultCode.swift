/// A numeric result code as the SDKs understand it (reference/error-codes.md). 0 is the only success.
public struct ResultCode: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(Int.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { String(rawValue) }
    public var isSuccess: Bool { self == .success }

    public static let success = ResultCode(0)
    // Push SDK
    public static let appKeyMissing = ResultCode(1005)
    public static let appKeyInvalid = ResultCode(1008)
    public static let emptyRequest = ResultCode(6001)
    public static let timeout = ResultCode(6002)
    public static let aliasCharset = ResultCode(6003)
    public static let aliasTooLong = ResultCode(6004)
    public static let tagCharset = ResultCode(6005)
    public static let tagTooLong = ResultCode(6006)
    public static let tooManyTags = ResultCode(6007)
    public static let tagsTooLarge = ResultCode(6008)
    public static let unknownError = ResultCode(6009)
    public static let tooFrequent = ResultCode(6011)
    public static let invalidRequest = ResultCode(6017)
    public static let deviceTagLimit = ResultCode(6018)
    public static let tagsInProgress = ResultCode(6021)
    public static let aliasInProgress = ResultCode(6022)
    public static let mobileFormat = ResultCode(6023)
    public static let internalError = ResultCode(6024)
    public static let mobileTooLong = ResultCode(6025)
    // MA SDK
    public static let maFailed = ResultCode(-1)
    public static let maNotStarted = ResultCode(-2)
    public static let maInvalidParameter = ResultCode(-3)
    public static let maFieldTooLong = ResultCode(3003)
    public static let maFieldInvalid = ResultCode(3013)
}
