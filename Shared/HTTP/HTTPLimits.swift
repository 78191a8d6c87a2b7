/// What one HTTP server lets each client do, and when it gives up on one. A value the server copies
/// at `init`. The defaults suit an API whose requests are small and whose clients keep connections
/// alive between requests.
public struct HTTPLimits: Sendable, Equatable {
    /// Connections held at once, upgraded ones included. Held connections cost a socket and
    /// `headerBytes` each, never a thread.
    public var maxConnections: Int
    /// Connections one client address may hold at once: one address cannot take the server's
    /// connections from everyone else.
    public var perAddress: Int
    /// Seconds a connection may stay silent (between requests, or mid-request) before it is closed.
    public var idleTimeoutSeconds: Int
    /// Seconds a request's head and body may take to arrive, counted from the connection's start or
    /// the end of its previous answer, however the client trickles its bytes (the idle timeout
    /// restarts on every byte; this does not). Past it the connection is cut.
    public var requestDeadlineSeconds: Double
    /// Seconds an answer may take to be read by the client, from the moment it is queued: a client
    /// that reads a large answer a few bytes at a time is cut past it (the idle timeout restarts on
    /// every byte written; this does not).
    public var responseDeadlineSeconds: Double
    /// Bytes each connection gets for its request line, headers and the answer's headers; a longer
    /// request head is refused (431).
    public var headerBytes: Int
    /// The longest body taken; a longer one is answered 413 (announced by Content-Length: at once).
    public var maxBodyBytes: Int

    public init(maxConnections: Int = 1024, perAddress: Int = 64, idleTimeoutSeconds: Int = 15, requestDeadlineSeconds: Double = 20,
                responseDeadlineSeconds: Double = 30, headerBytes: Int = 16 << 10, maxBodyBytes: Int = 1 << 20) {
        self.maxConnections = maxConnections
        self.perAddress = perAddress
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.requestDeadlineSeconds = requestDeadlineSeconds
        self.responseDeadlineSeconds = responseDeadlineSeconds
        self.headerBytes = headerBytes
        self.maxBodyBytes = maxBodyBytes
    }
}
