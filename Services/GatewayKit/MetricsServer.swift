import CMicroHTTPD
import Foundation
import Runtime

/// Serves `/metrics` (Prometheus text) and `/healthz` over HTTP with libmicrohttpd, on the library's
/// own thread. The broker hands it a fresh page every second; `/healthz` answers 503 once the page
/// is more than five seconds old (the broker loop has stalled).
public final class MetricsServer: @unchecked Sendable {
    private let lock = NSLock()
    private var page = ""
    private var updatedAt: Int64 = 0
    private var daemon: OpaquePointer?

    /// Listens on `host:port` (an IPv4 address).
    public init(host: String, port: UInt16) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw CocoaError(.formatting, userInfo: [NSLocalizedDescriptionKey: "metrics address \(host) is not IPv4"])
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        // libmicrohttpd's enums come in as closed Swift enums, so their values are spelled here:
        // MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD, MHD_OPTION_SOCK_ADDR and MHD_OPTION_END.
        let flags: UInt32 = 65_536 | 8
        let sockAddrOption: Int32 = 6, endOption: Int32 = 0
        daemon = withUnsafeMutablePointer(to: &address) { pointer in
            withVaList([sockAddrOption, OpaquePointer(pointer), endOption]) {
                MHD_start_daemon_va(flags, port, nil, nil, metricsRequest, context, $0)
            }
        }
        guard daemon != nil else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot serve metrics on \(host):\(port)"])
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
    var bytes = Array(answer.body.utf8)
    let response = bytes.withUnsafeMutableBytes {
        MHD_create_response_from_buffer($0.count, $0.baseAddress, MHD_ResponseMemoryMode(rawValue: 2)!)  // MHD_RESPMEM_MUST_COPY
    }
    guard let response else { return MHD_Result(rawValue: 0)! }
    defer { MHD_destroy_response(response) }
    MHD_add_response_header(response, "Content-Type", answer.type)
    return MHD_queue_response(connection, answer.status, response)
}
