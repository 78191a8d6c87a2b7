import CMicroHTTPD
import Foundation

/// An HTTP/1.1 server on libmicrohttpd: a thread per connection, calling `handler` with each whole
/// request (keep-alive and `Connection: close` clients alike). A handler may block its thread (a
/// call over the bus); other connections go on being served.
/// Bodies longer than `maxBodyBytes` are read and dropped, and the handler is told so. Connections
/// that stall are cut after `idleTimeoutSeconds`.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    fileprivate let handler: Handler
    fileprivate let maxBodyBytes: Int
    private let lock = NSLock()
    private var daemon: OpaquePointer?

    static let idleTimeoutSeconds: UInt32 = 30
    static let memoryPerConnection = 64 << 10

    /// Listens on `host:port` (an IPv4 address; other processes may listen there too).
    public init(host: String, port: UInt16, maxConnections: Int, maxBodyBytes: Int, handler: @escaping Handler) throws {
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw ApiError.address("\(host):\(port)") }
        let context = Unmanaged.passUnretained(self).toOpaque()
        daemon = pushbus_mhd_start_threaded(&address, serveRequest, context, requestEnded, UInt32(maxConnections),
                                            UInt32(maxConnections), Self.idleTimeoutSeconds, Self.memoryPerConnection)
        guard daemon != nil else { throw ApiError.unavailable("\(host):\(port)") }
    }

    deinit { stop() }

    /// Stops taking connections and waits for the threads to end; safe to call twice.
    public func stop() {
        let running: OpaquePointer? = lock.withLock {
            defer { daemon = nil }
            return daemon
        }
        if let running { MHD_stop_daemon(running) }
    }
}

/// What one request has collected so far, kept in libmicrohttpd's per-request slot.
private final class Upload {
    var body = Data()
    var tooLarge = false
}

/// libmicrohttpd's request callback: called once when the headers are in, once per piece of body,
/// and once at the end, when the request is answered.
private let serveRequest: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, slot in
    guard let context, let connection, let url, let method, let size, let slot else { return mhdNo }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    guard let pending = slot.pointee else {
        slot.pointee = Unmanaged.passRetained(Upload()).toOpaque()
        return mhdYes
    }
    let upload = Unmanaged<Upload>.fromOpaque(pending).takeUnretainedValue()
    if size.pointee > 0 {
        if !upload.tooLarge, let data {
            if upload.body.count + size.pointee > server.maxBodyBytes {
                upload.tooLarge = true
                upload.body = Data()
            } else {
                data.withMemoryRebound(to: UInt8.self, capacity: size.pointee) { upload.body.append($0, count: size.pointee) }
            }
        }
        size.pointee = 0
        return mhdYes
    }
    var request = HTTPRequest(method: String(cString: method), path: String(cString: url), body: upload.body, bodyTooLarge: upload.tooLarge)
    request.authorization = MHD_lookup_connection_value(connection, MHD_ValueKind(rawValue: 1)!, "Authorization").map { String(cString: $0) }
    request.query = queryArguments(connection)
    let answer = server.handler(request)
    let response = answer.body.withUnsafeBytes { pushbus_mhd_copied_response($0.baseAddress, $0.count) }
    guard let response else { return mhdNo }
    defer { MHD_destroy_response(response) }
    for header in answer.headers { MHD_add_response_header(response, header.name, header.value) }
    return MHD_queue_response(connection, UInt32(answer.status), response)
}

/// Frees what `serveRequest` kept for a request, however it ended.
private let requestEnded: MHD_RequestCompletedCallback = { _, _, slot, _ in
    guard let slot, let pending = slot.pointee else { return }
    Unmanaged<Upload>.fromOpaque(pending).release()
    slot.pointee = nil
}

/// The query string's arguments, decoded, in order.
private func queryArguments(_ connection: OpaquePointer) -> [(name: String, value: String)] {
    final class Collected { var items: [(name: String, value: String)] = [] }
    let collected = Collected()
    let pointer = Unmanaged.passUnretained(collected).toOpaque()
    _ = MHD_get_connection_values(connection, MHD_ValueKind(rawValue: 8)!, { cls, _, key, value in
        guard let cls, let key else { return mhdYes }
        Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue().items.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
        return mhdYes
    }, pointer)
    return withExtendedLifetime(collected) { collected.items }
}

private let mhdYes = MHD_Result(rawValue: 1)!
private let mhdNo = MHD_Result(rawValue: 0)!
