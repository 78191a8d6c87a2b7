#if os(Linux)
import CTLS
import Foundation
import Glibc

/// The device edge over HTTP/1.1 on one kept connection (TLS by OpenSSL for `https`), blocking, with
/// a timeout on every read and write. Used by one thread at a time (the SDK's queue).
public final class SocketTransport: DeviceTransport {
    private let host: String
    private let port: Int
    private let useTLS: Bool
    private let timeout: Double
    private var context: OpaquePointer?
    private var fd: Int32 = -1
    private var ssl: OpaquePointer?
    private var input: [UInt8] = []

    /// `server` is `https://host[:port]` or `http://…`; `caFile` replaces the system's trust store.
    public init(server: URL, caFile: String?, timeout: Double = 15) throws {
        guard let host = server.host, let scheme = server.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw TransportError("the server must be an https:// or http:// URL, not \(server)")
        }
        self.host = host
        useTLS = scheme == "https"
        port = server.port ?? (useTLS ? 443 : 80)
        self.timeout = timeout
        if useTLS {
            guard let context = SSL_CTX_new(TLS_client_method()) else { throw TransportError("SSL_CTX_new failed") }
            self.context = context
            _ = pushbus_tls_configure(context)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            let loaded = caFile.map { SSL_CTX_load_verify_locations(context, $0, nil) } ?? SSL_CTX_set_default_verify_paths(context)
            guard loaded == 1 else { throw TransportError("cannot load the trust store \(caFile ?? "(system)")") }
        }
    }

    deinit {
        close()
        if let context { SSL_CTX_free(context) }
    }

    public func post(command: String, payload: Data, proof: String?) throws -> (status: Int, body: Data) {
        var head = "POST /v1/device/\(command) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(payload.count)\r\n"
        if let proof { head += "X-PushBus-Proof: \(proof)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + payload
        // A kept connection the server closed meanwhile fails at once: one more try on a new one.
        for attempt in 0..<2 {
            do {
                if fd < 0 { try open() }
                try write(request)
                return try readResponse()
            } catch let error as TransportError {
                close()
                if attempt == 1 { throw error }
            }
        }
        throw TransportError("unreachable")
    }

    public func close() {
        if let ssl {
            SSL_shutdown(ssl)
            SSL_free(ssl)
        }
        ssl = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        input = []
    }

    private func open() throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { throw TransportError("cannot resolve \(host)") }
        defer { freeaddrinfo(found) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            let socket = Glibc.socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            if socket >= 0 {
                var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
                setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                var one: Int32 = 1
                setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                if Glibc.connect(socket, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                    fd = socket
                    break
                }
                Glibc.close(socket)
            }
            entry = current.pointee.ai_next
        }
        guard fd >= 0 else { throw TransportError("cannot connect to \(host):\(port)") }
        guard useTLS, let context else { return }
        guard let ssl = SSL_new(context) else { throw TransportError("SSL_new failed") }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        let isAddress = host.contains(":") || host.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }
        let checked = isAddress ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) : SSL_set1_host(ssl, host)
        guard checked == 1, isAddress || pushbus_tls_set_server_name(ssl, host) == 1 else { throw TransportError("cannot check the name \(host)") }
        guard SSL_connect(ssl) == 1 else {
            var text = [CChar](repeating: 0, count: 256)
            pushbus_tls_error_text(&text, text.count)
            throw TransportError("TLS handshake with \(host) failed: \(String(cString: text))")
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count: Int = bytes.withUnsafeBytes { buffer in
                let start = buffer.baseAddress! + sent
                if let ssl { return Int(SSL_write(ssl, start, Int32(bytes.count - sent))) }
                return Glibc.send(fd, start, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw TransportError("the connection to \(host) failed while sending") }
            sent += count
        }
    }

    private func fill() throws {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let count: Int = buffer.withUnsafeMutableBytes { raw in
            if let ssl { return Int(SSL_read(ssl, raw.baseAddress, Int32(raw.count))) }
            return recv(fd, raw.baseAddress, raw.count, 0)
        }
        guard count > 0 else { throw TransportError("no answer from \(host)") }
        input += buffer[0..<count]
    }

    /// Reads one whole answer: its status and body (Content-Length; a `Connection: close` closes after it).
    private func readResponse() throws -> (status: Int, body: Data) {
        let end: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if input.count >= 4 { headEnd = (0...(input.count - 4)).first { input[$0..<($0 + 4)].elementsEqual(end) } }
            if headEnd == nil { try fill() }
        }
        let head = String(decoding: input[0..<headEnd!], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TransportError("a malformed answer from \(host)") }
        var length = 0
        var closes = false
        for line in lines.dropFirst() {
            let pair = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0].lowercased() == "content-length" { length = Int(pair[1]) ?? 0 }
            if pair[0].lowercased() == "connection" && pair[1].lowercased() == "close" { closes = true }
        }
        let start = headEnd! + 4
        while input.count < start + length { try fill() }
        let body = Data(input[start..<(start + length)])
        input.removeFirst(start + length)
        if closes { close() }
        return (status, body)
    }
}
#endif
