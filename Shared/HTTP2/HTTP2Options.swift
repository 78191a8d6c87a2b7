/// How an `HTTP2Client` connects. The defaults suit one APNs host: one connection carrying up to
/// 500 streams at a time. Always straight to the host: proxies, and the `*_proxy` variables that
/// would name one, are ignored.
public struct HTTP2Options: Sendable, Equatable {
    /// PEM file of the certificate authorities to trust instead of the system's: how a test trusts
    /// a local stand-in with a self-signed certificate. Verification itself is never turned off.
    public var caFile: String?
    /// Seconds allowed for TCP and TLS set-up of a new connection.
    public var connectTimeout: Double
    /// Connections to one host. Streams wait for room on these rather than open more.
    public var maxConnections: Int
    /// Streams at once on one connection (libcurl's default is 100). The server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS caps this again, and requests past the server's cap wait
    /// inside libcurl, which costs CPU on every wake-up: set this to what the server allows when
    /// it is known (nghttpd: 100 by default; APNs announces its own in its SETTINGS frame).
    public var maxStreams: Int

    public init(caFile: String? = nil, connectTimeout: Double = 10, maxConnections: Int = 1, maxStreams: Int = 500) {
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.maxConnections = maxConnections
        self.maxStreams = maxStreams
    }
}
