import Foundation
import JSON
import Schema

/// A request the API does not carry out: an HTTP status and the code and message that the official
/// SDKs read from `{"error": {"code", "message"}}` (the jpush SDK fails on any other error body).
public struct Refusal: Error, Equatable, Sendable {
    public let status: Int
    public let code: Int
    public let message: String
    /// The methods a path takes, for a 405's `Allow` header.
    public var allow: String?

    public init(_ status: Int, _ code: Int, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// A service's refusal as HTTP: no answer in time is 503, too frequent 429 (code 2002, JPush's
    /// rate limit), another app's data 403, the services' internal errors 500, anything else 400
    /// with the service's code (JPush's push codes, the SDK codes of tags and aliases).
    public init(_ error: CommandError) {
        switch error.code {
        case .timeout: self.init(503, Int(error.code.rawValue), error.message)
        case .tooFrequent: self.init(429, Self.rateLimited, error.message)
        case .appKeyInvalid: self.init(403, Int(error.code.rawValue), error.message)
        case .internalError, .unknownError: self.init(500, Int(error.code.rawValue), error.message)
        default: self.init(400, Int(error.code.rawValue), error.message)
        }
    }

    /// JPush's code for a request over the app's rate.
    public static let rateLimited = 2002
    /// JPush's code for a missing or wrong app_key and master secret.
    public static let unauthorized = 1004
    /// The device API's code for a bad request or an unknown device (JPush v3 device API).
    public static let deviceRequest = 7002

    public static func badRequest(_ code: Int, _ message: String) -> Refusal { Refusal(400, code, message) }
    public static func notFound(_ message: String) -> Refusal { Refusal(404, 1011, message) }
    public static func missing(_ message: String) -> Refusal { badRequest(Int(ResultCode.pushMissing.rawValue), message) }
    public static func invalid(_ message: String) -> Refusal { badRequest(Int(ResultCode.pushInvalid.rawValue), message) }

    /// The body every non-2xx answer carries.
    public var body: JSONValue {
        .object(["error": .object(["code": .number(Double(code)), "message": .string(message)])])
    }
}
