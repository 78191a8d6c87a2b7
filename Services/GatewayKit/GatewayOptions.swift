import Runtime
import Schema

/// The gateway's settings, from flags or `PUSHBUS_*` variables; each property's initial value is its
/// flag's default.
public struct GatewayOptions: Options {
    /// The request endpoint to bind, for clients and workers (the `--endpoint` they dial).
    public var endpoint = DefaultEndpoints.request
    public var eventsIn = DefaultEndpoints.eventsIn
    public var eventsOut = DefaultEndpoints.eventsOut
    public var heartbeatMilliseconds = 1000
    public var liveness = 3
    public var requestTimeoutMilliseconds = 5000
    /// Deadlines of services whose workers wait on servers outside PushBus (the apns senders wait on
    /// APNs for as long as its connection lives), by service name; others have the request timeout.
    public var serviceTimeouts: [String: Int] = ["apns": 90_000]
    public var queueLimit = 10_000
    public var maxRequestBytes = 1 << 20
    public var logLevel = Logger.Level.info
    /// `host:port` of the HTTP endpoint with `/metrics` and `/healthz`, or nil for none.
    public var metricsAddress: String? = "127.0.0.1:5556"
    /// Where `admin.secret` and `server.key` live (made at first start).
    public var dataDirectory = "./data"
    /// Shards per service; a sharded service's workers announce `service/k`.
    public var shards = ShardMap()
    /// A file holding the CURVE secret key (Z85); when set, the request endpoint requires CURVE.
    public var curveSecretFile: String?
    /// Signed requests per second one app may send (0 = no limit); past it, code 6011.
    public var appRate = 0
    /// Requests per second one device may sign (0 = no limit); past it, code 6011.
    public var deviceRate = 0
    /// Unsigned registrations per second from one peer address (0 = no limit), and how many may
    /// come at once; past them, code 6011.
    public var registerRate = 1000
    public var registerBurst = 10_000
    /// The device edges (api processes): their unsigned registrations are not limited by their
    /// address, which is every phone's; the edge limits each client's address itself.
    public var edgePeers = AddressRanges()
    /// Memory for derived device and app keys (one HMAC each, so a busy device is not derived again).
    public var keyCacheMegabytes = 32
    /// Where to record every device command and its reply (JSON lines), or nil.
    public var recordPath: String?
    public var parentPID: String?

    public init() {}

    public static let options: [Option<GatewayOptions>] = [
        .string("endpoint", \.endpoint, help: "Request endpoint to bind, for clients and workers (MDP/0.1)."),
        .string("events-in", \.eventsIn, help: "Event-bus input to bind (XSUB); services publish here."),
        .string("events-out", \.eventsOut, help: "Event-bus output to bind (XPUB); subscribers connect here."),
        .int("heartbeat-ms", \.heartbeatMilliseconds, in: 10...60_000, help: "Heartbeat interval with workers, in milliseconds."),
        .int("liveness", \.liveness, in: 1...100, help: "Missed heartbeats before a worker is declared dead."),
        .int("request-timeout-ms", \.requestTimeoutMilliseconds, in: 10...600_000,
             help: "Deadline of a request; past it the client gets code 6002."),
        Option("service-timeout-ms", \.serviceTimeouts,
               help: "Deadlines of services that wait on servers outside PushBus, as name=ms pairs separated by commas (the apns senders wait on APNs while its connection is alive, so that a slow APNs delays notifications but duplicates none).",
               format: { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") },
               parse: { text throws(UsageError) in try GatewayOptions.timeouts(text) }),
        .int("queue-limit", \.queueLimit, in: 1...10_000_000,
             help: "Requests waiting per service; beyond it the client gets code 6002 at once."),
        .int("max-request-bytes", \.maxRequestBytes, in: 1024...(64 << 20), help: "Largest request accepted; a larger one gets code 6017."),
        .logLevel(\.logLevel),
        .optional("metrics", \.metricsAddress, help: "host:port for HTTP /metrics (Prometheus) and /healthz; empty for none."),
        .string("data-dir", \.dataDirectory, help: "Directory of admin.secret and server.key, which check signed requests."),
        .shards(\.shards),
        .optional("curve-secret-file", \.curveSecretFile,
                  help: "File with the CURVE secret key (Z85); the request endpoint then requires CURVE."),
        .int("app-rate", \.appRate, in: 0...10_000_000,
             help: "Requests per second an app's server may sign with its master secret (0 = no limit); past it, code 6011. Its devices' requests do not count."),
        .int("device-rate", \.deviceRate, in: 0...10_000_000,
             help: "Requests per second one device may sign (0 = no limit); past it, code 6011."),
        .int("register-rate", \.registerRate, in: 0...10_000_000,
             help: "Unsigned registrations per second from one address (IPv4, or IPv6 /64; 0 = no limit); past it and the burst, code 6011. "
                 + "1000 a second, 3.6 million an hour, is far beyond the few thousand phones a carrier NAT puts behind one address."),
        .int("register-burst", \.registerBurst, in: 1...100_000_000,
             help: "Unsigned registrations one address may send at once before --register-rate applies: every phone behind a large "
                 + "carrier NAT registering at the same moment (an app launch after a push, a reconnect after an outage)."),
        Option("edge-peers", \.edgePeers,
               help: "Comma-separated IPv4 addresses or CIDR ranges of the device edges (api): their unsigned registrations skip --register-rate, "
                   + "since they carry many phones' and the edge limits each phone's address (its --register-rate). Empty: none.",
               format: { $0.description },
               parse: { text throws(UsageError) in try AddressRanges(text, flag: "edge-peers") }),
        .int("key-cache-mb", \.keyCacheMegabytes, in: 1...4096,
             help: "Memory for derived device and app keys (32 MiB holds about 250,000 devices; past it the cache starts over)."),
        .optional("record", \.recordPath, help: "Record every device command and its reply to this file (JSON lines, see pushbus-replay)."),
        .parentPID(\.parentPID),
    ]

    /// The deadline of a request to `service` (a shard's name counts as its service's).
    public func timeout(for service: String) -> Int {
        guard !serviceTimeouts.isEmpty else { return requestTimeoutMilliseconds }
        if let own = serviceTimeouts[service] { return own }
        guard ShardHash.isShardName(service) else { return requestTimeoutMilliseconds }
        return serviceTimeouts[String(ShardHash.baseService(of: service))] ?? requestTimeoutMilliseconds
    }

    static func timeouts(_ text: String) throws(UsageError) -> [String: Int] {
        var timeouts: [String: Int] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=")
            guard parts.count == 2, !parts[0].isEmpty else { throw UsageError("--service-timeout-ms takes name=ms pairs, not \(pair)") }
            timeouts[String(parts[0])] = try Flags.int(String(parts[1]), "service-timeout-ms", in: 10...3_600_000)
        }
        return timeouts
    }
}
