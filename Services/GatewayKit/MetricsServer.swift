import CMicroHTTPD
import Foundation
import Runtime

/// Serves `/metrics` (Prometheus text) and `/healthz` over HTTP with libmicrohttpd, on the library's
/// own thread. The broker hands it a fresh page every second; `/healthz` answers 503 once the page
/// is more than five seconds old (the broker loop has stalled). Clients that connect and never
/// finish a request are bounded (a connection limit below the open-file limit, a share per address,
/// an idle timeout), so they cannot keep `/healthz`, Kubernetes' liveness probe, from answering.
public final class MetricsServer: @unchecked Sendable {
    private let lock = NSLock()
    private var page = ""
    private var updatedAt: Int64 = 0
    private var daemon: OpaquePointer?

    /// Connections closed after this many seconds without traffic: a scrape or a probe sends its
    /// request at once, so only a stalled or hostile client is cut.
    static let idleTimeoutSeconds: UInt32 = 3
    /// Room kept for addresses other than the busiest one (the kubelet's probe, Prometheus).
    static let keptForOtherAddresses = 1_024
    /// Memory per connection for its request and response headers; the pages served are far smaller.
    static let memoryPerConnection = 16 << 10

    /// How many connections may be held at once, given the process's open-file limit: enough that
    /// thousands of unfinished requests leave room for `/healthz`, never more than 16,384, and
    /// always 4,096 descriptors short of the limit, which stay for the broker's ZeroMQ peers.
    static func connectionLimit(openFiles: Int) -> Int { max(64, min(16_384, openFiles - 4_096)) }

    /// How many of them one address may hold: all but `keptForOtherAddresses`, or half.
    static func perAddressLimit(connections: Int) -> Int { max(connections / 2, connections - keptForOtherAddresses) }

    /// The connection limit in force.
    public let connectionLimit: Int

    /// Listens on `host:port` (an IPv4 address), holding at most `connectionLimit(openFiles:)`
    /// connections for the open-file limit in force now.
    public init(host: String, port: UInt16) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw GatewayError.metricsAddress("\(host):\(port)")
        }
        connectionLimit = Self.connectionLimit(openFiles: OpenFileLimit.current)
        let context = Unmanaged.passUnretained(self).toOpaque()
        daemon = pushbus_mhd_start(&address, metricsRequest, context, UInt32(connectionLimit),
                                   UInt32(Self.perAddressLimit(connections: connectionLimit)),
                                   Self.idleTimeoutSeconds, Self.memoryPerConnection)
        guard daemon != nil else {
            throw GatewayError.metricsUnavailable("\(host):\(port)")
        }
    }

    deinit { stop() }

    /// Replaces the page `/metrics` serves.
    public func publish(_ text: String, at now: Int64) {
        lock.withLock {
            page = text
            updatedAt = now
        }
    }

    /// Stops serving; safe to call twice.
    public func stop() {
        lock.lock()
        let running = daemon
        daemon = nil
        lock.unlock()
        if let running { MHD_stop_daemon(running) }
    }

    fileprivate func respond(to path: String, now: Int64) -> (status: UInt32, type: String, body: String) {
        let (text, at) = lock.withLock { (page, updatedAt) }
        switch path {
        case "/metrics": return (200, "text/plain; version=0.0.4; charset=utf-8", text)
        case "/healthz": return now - at <= 5000 ? (200, "text/plain", "ok\n") : (503, "text/plain", "stalled\n")
        default: return (404, "text/plain", "not found\n")
        }
    }
}

/// libmicrohttpd's request callback: one response per request, copied out of Swift memory.
private let metricsRequest: MHD_AccessHandlerCallback = { context, connection, url, _, _, _, _, _ in
    guard let context, let url else { return MHD_Result(rawValue: 0)! }
    let server = Unmanaged<MetricsServer>.fromOpaque(context).takeUnretainedValue()
    let answer = server.respond(to: String(cString: url), now: Clock.milliseconds())
    let bytes = Array(answer.body.utf8)
    let response = bytes.withUnsafeBytes { pushbus_mhd_copied_response($0.baseAddress, $0.count) }
    guard let response else { return MHD_Result(rawValue: 0)! }
    defer { MHD_destroy_response(response) }
    MHD_add_response_header(response, "Content-Type", answer.type)
    return MHD_queue_response(connection, answer.status, response)
}
