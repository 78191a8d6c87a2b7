/// What a client has done so far, for tests and benchmarks; read with `HTTP2Client.counters`.
public struct HTTP2Counters: Sendable, Equatable {
    /// Connections that finished TCP (and TLS) set-up.
    public var connectionsOpened = 0
    /// Connection attempts that failed before they could carry a request (refused, timed out, TLS or ALPN refused).
    public var connectionsFailed = 0
    /// PING frames sent: outstanding streams with nothing heard, or an idle connection's check.
    public var pingsSent = 0
    /// GOAWAY frames received.
    public var goawaysSeen = 0
    /// RST_STREAM frames received from servers (REFUSED_STREAM included).
    public var streamsReset = 0
    /// Streams this client cancelled (RST_STREAM CANCEL) because the stream timeout passed.
    public var streamsCancelled = 0
    /// Requests put back in the queue to go again on another stream (REFUSED_STREAM, above a
    /// GOAWAY's last-stream-id, never written on a connection that died).
    public var requestsRetried = 0

    public init() {}
}
