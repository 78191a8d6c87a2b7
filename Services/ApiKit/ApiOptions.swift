import Foundation
import HTTP
import Runtime

/// The `api` server's settings, from flags or `PUSHBUS_*` variables; each property's initial value
/// is its flag's default.
public struct ApiOptions: Options {
    /// The gateway's request endpoint.
    public var endpoint = DefaultEndpoints.request
    /// `host:port` to serve HTTP on: the launcher's base port + 4.
    public var listen = "127.0.0.1:5559"
    /// Where `admin.secret` and `server.key` live: master secrets are derived from server.key.
    public var dataDirectory = "./data"
    public var maxConnections = 4096
    public var perAddress = 64
    public var idleTimeoutSeconds = 15
    public var requestDeadlineSeconds = 20
    public var responseDeadlineSeconds = 30
    public var maxBodyBytes = 1 << 20
    /// Threads that run requests' bus calls, and how many whole requests may wait for one.
    public var handlerThreads = 32
    public var queueLimit = 4096
    /// Units one app may spend in a window (a request one, a batch push one per push; 0 = no limit), and the window's length.
    public var appQuota = 60_000
    public var quotaWindowSeconds = 60
    public var requestTimeoutMilliseconds = 5000
    public var curveServerKey: String?
    /// The device edge's limits (`POST /v1/device/<command>`), and the proxies it believes.
    public var deviceMaxBodyBytes = 64 << 10
    public var registerRate = 5
    public var registerBurst = 20
    public var connectionRate = 50
    public var trustedProxies = ""
    public var edgeSlots = 64
    public var edgeQueue = 4096
    /// HTTPS: the certificate chain and key, PEM files; both or neither.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// The console's pages (`/console/`): a directory, or "" for the one found beside the build.
    public var consoleDirectory = ""
    public var consoleSessionMinutes = 60
    /// The console's cookie is `Secure`: set when TLS is ended by a proxy in front.
    public var consoleSecureCookie = false
    public var logLevel = Logger.Level.info
    public var parentPID: String?

    public init() {}

    /// The console's directory: `--console-dir`, else a `console/` beside the executable (an
    /// install), else `Services/Api/Console` of the checkout it was built in (a folder above it,
    /// `.build/<config>/api`), else nil: the console answers 404.
    public func consolePages(executable: String = CommandLine.arguments[0]) -> String? {
        if !consoleDirectory.isEmpty { return consoleDirectory }
        let given = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let resolved = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [given.appendingPathComponent("console")]
        for start in [given, resolved] {
            var folder = start
            for _ in 0..<4 {
                candidates.append(folder.appendingPathComponent("Services/Api/Console"))
                folder = folder.deletingLastPathComponent()
            }
        }
        return candidates.map(\.standardizedFileURL.path).first { FileManager.default.fileExists(atPath: $0 + "/index.html") }
    }

    public static let options: [Option<ApiOptions>] = [
        .string("endpoint", \.endpoint, help: "The gateway's request endpoint (MDP/0.1)."),
        .string("listen", \.listen, help: "host:port to serve the REST API (and the device edge) on (IPv4); several api processes may share it."),
        .string("data-dir", \.dataDirectory, help: "Directory of admin.secret and server.key (the same as the gateway's)."),
        .int("max-connections", \.maxConnections, in: 16...65_536,
             help: "Connections held at once (one event loop polls them all: a held connection costs a socket, not a thread)."),
        .int("per-address", \.perAddress, in: 1...65_536, help: "Connections one client address may hold at once."),
        .int("idle-timeout-s", \.idleTimeoutSeconds, in: 1...3600, help: "Seconds a connection may stay silent before it is closed."),
        .int("request-deadline-s", \.requestDeadlineSeconds, in: 1...3600,
             help: "Seconds a request's head and body may take to arrive, however slowly they trickle in; past it the connection is cut."),
        .int("response-deadline-s", \.responseDeadlineSeconds, in: 1...3600,
             help: "Seconds an answer may take to be read, from when it is ready, however slowly the client reads; past it the connection is cut."),
        .int("max-body-bytes", \.maxBodyBytes, in: 1024...(64 << 20), help: "Largest request body taken; a larger one is answered 413."),
        .int("handler-threads", \.handlerThreads, in: 1...1024, help: "Threads that answer whole requests (each waits on its bus calls)."),
        .int("queue-limit", \.queueLimit, in: 1...1_000_000, help: "Whole requests that may wait for a handler thread; past it, 503."),
        .int("app-quota", \.appQuota, in: 0...100_000_000,
             help: "Units one app_key may spend per window in this process (a request one, a batch push one per push; 0 = no limit); past it, 429 with code 2002."),
        .int("quota-window-s", \.quotaWindowSeconds, in: 1...86_400, help: "Length of the quota's window, in seconds."),
        .int("request-timeout-ms", \.requestTimeoutMilliseconds, in: 10...600_000,
             help: "How long a bus call may take; past it the request is answered 503."),
        .optional("curve-server-key", \.curveServerKey, help: "The gateway's CURVE public key (Z85), when it requires encryption."),
        .int("device-max-body-bytes", \.deviceMaxBodyBytes, in: 1024...(1 << 20),
             help: "Device edge: largest body of a device command; a larger one is answered 413 (code 6017)."),
        .int("register-rate", \.registerRate, in: 0...1_000_000,
             help: "Device edge: unsigned registrations a second one client address may send (past the burst: 429, code 6011; 0 = no limit, as the gateway reads the same PUSHBUS_REGISTER_RATE)."),
        .int("register-burst", \.registerBurst, in: 1...1_000_000, help: "Device edge: unsigned registrations one client address may send at once."),
        .int("connection-rate", \.connectionRate, in: 1...1_000_000,
             help: "Device edge: requests a second one connection may send (burst twice that; past it: 429, code 6011)."),
        .string("trusted-proxy", \.trustedProxies,
                help: "Comma-separated IPv4 addresses or CIDR ranges of proxies whose X-Forwarded-For names the client (empty: none is believed)."),
        .int("edge-slots", \.edgeSlots, in: 1...4096, help: "Device edge: bus requests out at once for devices (beside --handler-threads for the REST API)."),
        .int("edge-queue", \.edgeQueue, in: 1...1_000_000, help: "Device edge: device requests that may wait for a bus slot; past it, 503 (code 6002)."),
        .optional("tls-cert", \.tlsCertificate, help: "PEM certificate chain: serve HTTPS (libmicrohttpd with GnuTLS); needs --tls-key."),
        .optional("tls-key", \.tlsKey, help: "PEM private key of --tls-cert."),
        .string("console-dir", \.consoleDirectory,
                help: "Directory of the console's pages served at /console/ (default: a console/ beside the executable, or the checkout's Services/Api/Console)."),
        .int("console-session-minutes", \.consoleSessionMinutes, in: 1...1440, help: "Minutes a console sign-in lasts."),
        .switch("console-secure-cookie", \.consoleSecureCookie,
                help: "Mark the console's cookie Secure although this process serves plain HTTP (TLS ended by a proxy in front); always so with --tls-cert."),
        .logLevel(\.logLevel),
        .parentPID(\.parentPID),
    ]

    /// What the HTTP server lets each client do.
    public var limits: HTTPLimits {
        HTTPLimits(maxConnections: maxConnections, perAddress: perAddress, idleTimeoutSeconds: idleTimeoutSeconds,
                   requestDeadlineSeconds: Double(requestDeadlineSeconds), responseDeadlineSeconds: Double(responseDeadlineSeconds),
                   maxBodyBytes: maxBodyBytes)
    }

    /// `listen` split into an IPv4 host and a port.
    public func address() throws(UsageError) -> (host: String, port: UInt16) { try Flags.hostPort(listen, "listen") }

    /// The device edge's settings.
    public func edge() throws(UsageError) -> DeviceEdge.Settings {
        var settings = DeviceEdge.Settings()
        settings.maxBodyBytes = deviceMaxBodyBytes
        settings.registerRate = registerRate
        settings.registerBurst = registerBurst
        settings.connectionRate = connectionRate
        settings.trustedProxies = try AddressRanges(trustedProxies, flag: "trusted-proxy")
        return settings
    }

    public func validate() throws(UsageError) {
        _ = try address()
        _ = try edge()
        if (tlsCertificate == nil) != (tlsKey == nil) { throw UsageError("--tls-cert and --tls-key go together") }
    }
}
