import Runtime

/// The gateway's settings, from flags or `PUSHBUS_*` variables.
public struct GatewayOptions: Sendable {
    public var endpoint = "tcp://127.0.0.1:5555"
    public var eventsIn = "tcp://127.0.0.1:5557"
    public var eventsOut = "tcp://127.0.0.1:5558"
    public var heartbeatMilliseconds = 1000
    public var liveness = 3
    public var requestTimeoutMilliseconds = 5000
    public var queueLimit = 10_000
    public var maxRequestBytes = 1 << 20
    public var logLevel = Logger.Level.info
    /// Where to record every device command and its reply (JSON lines), or nil.
    public var recordPath: String?
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
    /// Memory for derived device and app keys (one HMAC each, so a busy device is not derived again).
    public var keyCacheMegabytes = 32
    /// Shards per service; a sharded service's workers announce `service/k`.
    public var shards = ShardMap()
    /// `host:port` of the HTTP endpoint with `/metrics` and `/healthz`, or nil for none.
    public var metricsAddress: String?
    /// Where `admin.secret` and `server.key` live (made at first start).
    public var dataDirectory = "./data"
    public var parentPID: String?

    public init() {}

    public static let flags: [Flag] = [
        Flag("endpoint", default: "tcp://127.0.0.1:5555", help: "Request endpoint to bind, for clients and workers (MDP/0.1)."),
        Flag("events-in", default: "tcp://127.0.0.1:5557", help: "Event-bus input to bind (XSUB); services publish here."),
        Flag("events-out", default: "tcp://127.0.0.1:5558", help: "Event-bus output to bind (XPUB); subscribers connect here."),
        Flag("heartbeat-ms", default: "1000", help: "Heartbeat interval with workers, in milliseconds."),
        Flag("liveness", default: "3", help: "Missed heartbeats before a worker is declared dead."),
        Flag("request-timeout-ms", default: "5000", help: "Deadline of a request; past it the client gets code 6002."),
        Flag("queue-limit", default: "10000", help: "Requests waiting per service; beyond it the client gets code 6002 at once."),
        Flag("max-request-bytes", default: "1048576", help: "Largest request accepted; a larger one gets code 6017."),
        Flag("log-level", default: "info", help: "trace, debug, info, notice, warning or error."),
        Flag("metrics", default: "127.0.0.1:5556", help: "host:port for HTTP /metrics (Prometheus) and /healthz; empty for none."),
        Flag("data-dir", default: "./data", help: "Directory of admin.secret and server.key, which check signed requests."),
        Flag("shards", default: "", help: "Shards per service, e.g. tagging=2,badge=2; must match what the launcher starts."),
        Flag("curve-secret-file", default: nil, help: "File with the CURVE secret key (Z85); the request endpoint then requires CURVE."),
        Flag("app-rate", default: "0", help: "Requests per second an app's server may sign with its master secret (0 = no limit); past it, code 6011. Its devices' requests do not count."),
        Flag("device-rate", default: "0", help: "Requests per second one device may sign (0 = no limit); past it, code 6011."),
        Flag("register-rate", default: "1000",
             help: "Unsigned registrations per second from one address (IPv4, or IPv6 /64; 0 = no limit); past it and the burst, code 6011. "
                 + "1000 a second, 3.6 million an hour, is far beyond the few thousand phones a carrier NAT puts behind one address."),
        Flag("register-burst", default: "10000",
             help: "Unsigned registrations one address may send at once before --register-rate applies: every phone behind a large "
                 + "carrier NAT registering at the same moment (an app launch after a push, a reconnect after an outage)."),
        Flag("key-cache-mb", default: "32", help: "Memory for derived device and app keys (32 MiB holds about 200,000 devices)."),
        Flag("record", default: nil, help: "Record every device command and its reply to this file (JSON lines, see pushbus-replay)."),
        ParentWatch.flag,
    ]

    public init(_ flags: Flags) throws(UsageError) {
        endpoint = flags.string("endpoint")
        eventsIn = flags.string("events-in")
        eventsOut = flags.string("events-out")
        heartbeatMilliseconds = try flags.int("heartbeat-ms", in: 10...60_000)
        liveness = try flags.int("liveness", in: 1...100)
        requestTimeoutMilliseconds = try flags.int("request-timeout-ms", in: 10...600_000)
        queueLimit = try flags.int("queue-limit", in: 1...10_000_000)
        maxRequestBytes = try flags.int("max-request-bytes", in: 1024...(64 << 20))
        logLevel = try flags.logLevel()
        parentPID = flags.optionalString(ParentWatch.flag.name)
        recordPath = flags.optionalString("record")
        shards = try ShardMap(parsing: flags.string("shards"))
        curveSecretFile = flags.optionalString("curve-secret-file")
        dataDirectory = flags.string("data-dir")
        metricsAddress = flags.optionalString("metrics")
        appRate = try flags.int("app-rate", in: 0...10_000_000)
        deviceRate = try flags.int("device-rate", in: 0...10_000_000)
        registerRate = try flags.int("register-rate", in: 0...10_000_000)
        registerBurst = try flags.int("register-burst", in: 1...100_000_000)
        keyCacheMegabytes = try flags.int("key-cache-mb", in: 1...4096)
    }
}
