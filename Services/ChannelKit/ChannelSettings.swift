import HTTP
import Runtime
import WebSocket

/// The channel service's own settings, from flags or `PUSHBUS_*` variables.
public struct ChannelSettings: Options {
    /// Where devices connect (`ws://<listen>/v1/channel`): the launcher's base port + 5.
    public var listen = "127.0.0.1:5560"
    public var maxConnections = 30_000
    /// Connections one address may hold: phones behind a carrier's NAT share one, so it is generous.
    public var perAddress = 1_000
    /// Seconds a handshake may take from the connection's start, however its bytes trickle in.
    public var handshakeTimeoutSeconds = 10
    public var maxMessageBytes = 8192
    public var maxQueuedBytes = 262_144
    public var framesPerSecond = 20
    public var pingIntervalSeconds = 25
    public var pongTimeoutSeconds = 10
    public var helloTimeoutSeconds = 10
    /// What libmicrohttpd gives each connection for its handshake, and keeps while it lives.
    public var handshakeMemory = 4096
    /// Requests to the bus in flight at once (attachments, acknowledgements, reports).
    public var uplinkSlots = 16
    /// wss: the certificate chain and key, PEM files; both or neither.
    public var tlsCertificate: String?
    public var tlsKey: String?

    public init() {}

    public static let options: [Option<ChannelSettings>] = [
        .string("listen", \.listen, help: "host:port devices connect to (ws://<listen>/v1/channel); several channel processes may share it."),
        .int("max-connections", \.maxConnections, in: 1...1_000_000, help: "Connections held at once; more are refused during the handshake."),
        .int("per-address", \.perAddress, in: 1...1_000_000,
             help: "Connections one client address may hold (phones behind a carrier's NAT share one: keep it generous)."),
        .int("handshake-timeout", \.handshakeTimeoutSeconds, in: 1...600,
             help: "Seconds the HTTP handshake may take from the connection's start, however slowly it trickles in; past it the connection is cut."),
        .int("max-message-bytes", \.maxMessageBytes, in: 256...1_048_576, help: "The largest frame a device may send; a larger one closes its connection with 1009."),
        .int("max-queued-bytes", \.maxQueuedBytes, in: 4096...67_108_864,
             help: "Bytes queued for a device that reads too slowly before its connection is closed (1008)."),
        .int("frames-per-second", \.framesPerSecond, in: 1...10_000, help: "Frames a device may send per second (bursts of twice that); past it: closed with 1008."),
        .int("ping-interval", \.pingIntervalSeconds, in: 1...3600, help: "Seconds of silence before a connection is pinged."),
        .int("pong-timeout", \.pongTimeoutSeconds, in: 1...3600, help: "Seconds after a ping within which the device must answer, or it is taken for dead."),
        .int("handshake-memory", \.handshakeMemory, in: 2048...65_536,
             help: "Bytes for each connection's HTTP handshake, kept while it lives (most of an idle connection's memory)."),
        .int("hello-timeout", \.helloTimeoutSeconds, in: 1...600, help: "Seconds a new connection may take to send its hello."),
        .int("uplink-slots", \.uplinkSlots, in: 1...256, help: "Requests to the bus in flight at once (attachments, acknowledgements, reports, relayed requests)."),
        .optional("tls-cert", \.tlsCertificate, help: "PEM certificate chain: serve wss:// (libmicrohttpd with GnuTLS); needs --tls-key."),
        .optional("tls-key", \.tlsKey, help: "PEM private key of --tls-cert."),
    ]

    public func validate() throws(UsageError) {
        _ = try address()
        if (tlsCertificate == nil) != (tlsKey == nil) { throw UsageError("--tls-cert and --tls-key go together") }
    }

    /// The TLS identity read from `--tls-cert` and `--tls-key`, nil without them.
    public func tls() throws -> TLSIdentity? {
        try TLSIdentity.load(certificateFile: tlsCertificate, keyFile: tlsKey)
    }

    /// `listen` split into an IPv4 host and a port.
    public func address() throws(UsageError) -> (host: String, port: UInt16) { try Flags.hostPort(listen, "listen") }

    public var limits: WebSocketLimits {
        WebSocketLimits(maxMessageBytes: maxMessageBytes, maxQueuedBytes: maxQueuedBytes, framesPerSecond: framesPerSecond,
                        pingInterval: Double(pingIntervalSeconds), pongTimeout: Double(pongTimeoutSeconds), handshakeTimeout: handshakeTimeoutSeconds,
                        maxConnections: maxConnections, perAddress: perAddress, handshakeMemory: handshakeMemory)
    }
}
