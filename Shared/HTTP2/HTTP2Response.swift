import Foundation

/// What came back for one request: an HTTP status with headers and body, or a transport failure
/// (no connection, TLS refused, reset stream, timed out) with `status` 0 and the reason in `error`.
public struct HTTP2Response: Sendable, Equatable {
    /// The HTTP status, or 0 when the transport failed and there is no answer from the server.
    public var status: Int
    /// Response headers by lower-case name (`apns-id`, `retry-after`, ...); a repeated name keeps
    /// its last value.
    public var headers: [String: String]
    public var body: Data
    /// Why the transport failed (libcurl's reason, with its detail when it gave one); nil when an
    /// answer came back, whatever its status.
    public var error: String?

    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), error: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.error = error
    }

    /// A response for a request that never got an answer.
    public static func failure(_ reason: String) -> HTTP2Response { HTTP2Response(status: 0, error: reason) }
}
