import Foundation

/// One request to send as an HTTP/2 stream. A value: the client copies what it needs (the body
/// included) when the transfer starts.
public struct HTTP2Request: Sendable {
    /// "POST" (the APNs case), "GET", or any other method, which is sent with the body.
    public var method: String
    /// An `https://` URL. `http://` means cleartext h2c with prior knowledge, for tests only: the
    /// libcurl 7.88 of Debian 12 cannot reuse an h2c connection (curl issue 10634, fixed in 8.0),
    /// so every request after the first on one fails with "Error in the HTTP2 framing layer".
    public var url: String
    /// Sent as given, in order. Only these go out: libcurl's own `accept` and form `content-type`
    /// are suppressed, so a request carries no header its caller did not ask for.
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(method: String = "POST", url: String, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
