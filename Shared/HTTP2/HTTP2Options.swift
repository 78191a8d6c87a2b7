/// How an `HTTP2Client` connects and how long it waits. The defaults suit APNs: up to 4
/// connections an origin, opened one at a time as the streams of the open ones fill up. Always
/// straight to the host: no proxy. Times are seconds.
public struct HTTP2Options: Sendable, Equatable {
    /// PEM file of the certificate authorities to trust instead of the system's (how a test trusts
    /// a local stand-in's self-signed certificate). Verification itself is never turned off.
    public var caFile: String?
    /// TCP and TLS set-up of one connection (default 10).
    public var connectTimeout: Double
    /// Connections to one origin at most (default 4, at least 1). Another is opened only when every
    /// stream of the open ones is busy and requests wait; one going away (after a GOAWAY) while it
    /// finishes its streams is not counted.
    public var maxConnections: Int
    /// Streams at once on one connection, client side (default 1000, at least 1); the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS wins when lower, and is followed as it changes.
    public var maxStreams: Int
    /// A connection with streams outstanding and nothing received for this long gets a PING (default 5).
    public var pingInterval: Double
    /// An idle connection gets a PING this long after it last heard from the server (default 60).
    public var idlePingInterval: Double
    /// No PING ACK within this long: the connection is dead (default 5). Its written streams end
    /// `.lost`, the unwritten ones go again on another connection.
    public var pingTimeout: Double
    /// The most one stream may take from being opened to its response's end (default 30); then it
    /// is reset with CANCEL and ends `.lost`.
    public var streamTimeout: Double
    /// How long a request may wait to be written, retries across connections included, before it
    /// ends `.notSent` (default 30).
    public var sendTimeout: Double
    /// The wait before reconnecting after a connection failed or died without an answer: starts at
    /// `reconnectMin` (default 0.5), doubles each time up to `reconnectMax` (default 30), with ±25 %
    /// jitter, and starts over once a connection gets a response. APNs reads rapid reconnects as an attack.
    public var reconnectMin: Double
    public var reconnectMax: Double
    /// The receive window announced for each stream and for the whole connection, in bytes
    /// (default 16 MiB; 65,535 to 2^31 − 1); what is received is acknowledged as it is read.
    public var receiveWindow: Int
    /// The response headers kept in `HTTP2Response.headers`, by lower-case name; nil keeps them
    /// all. Each one kept is two strings and a dictionary entry for every response: the APNs
    /// sender reads only `retry-after`, and a stand-in sends `server` and `date` besides.
    public var responseHeaders: [String]? = nil

    public init(caFile: String? = nil, connectTimeout: Double = 10, maxConnections: Int = 4, maxStreams: Int = 1000,
                pingInterval: Double = 5, idlePingInterval: Double = 60, pingTimeout: Double = 5, streamTimeout: Double = 30,
                sendTimeout: Double = 30, reconnectMin: Double = 0.5, reconnectMax: Double = 30, receiveWindow: Int = 16 << 20) {
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.maxConnections = maxConnections
        self.maxStreams = maxStreams
        self.pingInterval = pingInterval
        self.idlePingInterval = idlePingInterval
        self.pingTimeout = pingTimeout
        self.streamTimeout = streamTimeout
        self.sendTimeout = sendTimeout
        self.reconnectMin = reconnectMin
        self.reconnectMax = reconnectMax
        self.receiveWindow = receiveWindow
    }
}
