import Foundation

/// What came back for one request: an HTTP status with headers and body, or why there is none.
public struct HTTP2Response: Sendable, Equatable {
    /// The HTTP status, or 0 when `failure` says why there is no answer.
    public var status: Int
    /// Response headers by name (HTTP/2 names are lower-case on the wire); a repeated name keeps its last value.
    public var headers: [String: String]
    public var body: Data
    /// Why there is no answer, and whether the server may have acted on the request; nil when an
    /// answer came back, whatever its status.
    public var failure: HTTP2Failure?

    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), failure: HTTP2Failure? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.failure = failure
    }

    /// A response for a request that got no answer.
    public static func failed(_ failure: HTTP2Failure) -> HTTP2Response { HTTP2Response(status: 0, failure: failure) }
}
