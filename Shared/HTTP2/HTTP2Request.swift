import Foundation

/// One request to send as an HTTP/2 stream. A value: the client keeps it until the request ends
/// and reads its bytes from the loop thread when the stream is opened.
public struct HTTP2Request: Sendable {
    /// "POST" (the APNs case), "GET", or any other method; the body goes with any of them.
    public var method: String
    /// `https://host[:port]/path`, or `http://` for cleartext h2c with prior knowledge (tests and
    /// local stand-ins). The scheme and authority pick the connection pool.
    public var url: String
    /// Sent in order after the pseudo-headers, names lower-cased. A name or value with CR, LF or
    /// NUL, an empty or pseudo (`:`) name, or a connection-specific header (`connection`, `host`,
    /// `transfer-encoding`, ...) fails the request `.notSent` before anything is written.
    public var headers: [(name: String, value: String)]
    public var body: Data
    /// Names (as `headers` spells them; `:path` for the path) of the headers whose values differ from request to
    /// request, such as a device token in the path or an id: sent without adding them to HPACK's
    /// table (RFC 7541 §6.2.2), where each would push out the headers every request repeats (the
    /// authorization, the topic), which then go literal again on every request.
    public var unindexed: [String]

    public init(method: String = "POST", url: String, headers: [(name: String, value: String)] = [], body: Data = Data(),
                unindexed: [String] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.unindexed = unindexed
    }
}
