import Foundation
import HTTP
import Runtime
import Synchronization

/// Serves `/metrics` (Prometheus text) and `/healthz` over HTTP with libmicrohttpd, on the library's
/// own thread. The broker hands it a fresh page every second; `/healthz` answers 503 once the page
/// is more than five seconds old (the broker loop has stalled). Clients that connect and never
/// finish a request are bounded (a connection limit below the open-file limit, a share per address,
/// an idle timeout), so they cannot keep `/healthz`, Kubernetes' liveness probe, from answering.
public final class MetricsServer: Sendable {
    private let page = Page()
    private let server: HTTPServer

    /// Connections closed after this many seconds without traffic: a scrape or a probe sends its
    /// request at once, so only a stalled or hostile client is cut.
    static let idleTimeoutSeconds = 3
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
        let limit = Self.connectionLimit(openFiles: OpenFileLimit.current)
        connectionLimit = limit
        let page = page
        do {
            server = try HTTPServer(name: "metrics-http", host: host, port: Int(port),
                                    limits: HTTPLimits(maxConnections: limit, perAddress: Self.perAddressLimit(connections: limit),
                                                       idleTimeoutSeconds: Self.idleTimeoutSeconds,
                                                       requestDeadlineSeconds: Double(Self.idleTimeoutSeconds),
                                                       headerBytes: Self.memoryPerConnection, maxBodyBytes: 1024)) { request, responder in
                responder.respond(Self.respond(to: request.path, page: page.current.withLock { $0 }, now: Clock.milliseconds()))
            }
        } catch .address {
            throw GatewayError.metricsAddress("\(host):\(port)")
        } catch {
            throw GatewayError.metricsUnavailable("\(host):\(port)")
        }
    }

    /// Replaces the page `/metrics` serves.
    public func publish(_ text: String, at now: Int64) {
        page.current.withLock { $0 = (text, now) }
    }

    /// Stops serving; safe to call twice.
    public func stop() { server.stop() }

    static func respond(to path: String, page: (text: String, updatedAt: Int64), now: Int64) -> HTTPResponse {
        switch path {
        case "/metrics": HTTPResponse(status: 200, body: Data(page.text.utf8), headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")])
        case "/healthz": now - page.updatedAt <= 5000 ? .text(200, "ok\n") : .text(503, "stalled\n")
        default: .text(404, "not found\n")
        }
    }
}

/// The page served, replaced by the broker and read by the server's thread.
private final class Page: Sendable {
    let current = Mutex((text: "", updatedAt: Int64(0)))
}
