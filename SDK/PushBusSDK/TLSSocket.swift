#if os(Linux)
import CTLS
import Foundation
import Glibc

/// A blocking TCP connection, TLS by OpenSSL when asked, with a timeout on every read and write:
/// what `SocketTransport` (HTTP/1.1) and `SocketChannel` (WebSocket) speak over on Linux.
final class TLSSocket {
    /// A client context: TLS 1.2 or later, peers verified against `caFile` or the system's store.
    final class Context {
        let context: OpaquePointer

        init(caFile: String?) throws {
            guard let context = SSL_CTX_new(TLS_client_method()) else { throw TransportError("SSL_CTX_new failed") }
            self.context = context
            _ = pushbus_tls_configure(context)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            let loaded = caFile.map { SSL_CTX_load_verify_locations(context, $0, nil) } ?? SSL_CTX_set_default_verify_paths(context)
            guard loaded == 1 else { throw TransportError("cannot load the trust store \(caFile ?? "(system)")") }
        }

        deinit { SSL_CTX_free(context) }

        /// One context per trust store, shared by every connection of every client in the process: a
        /// context holds the parsed certificates (hundreds of KiB for the system's store), so an app
        /// with one client, or a test with thousands, loads them once.
        static func shared(caFile: String?) throws -> Context {
            cacheLock.lock()
            defer { cacheLock.unlock() }
            if let context = cache[caFile ?? ""] { return context }
            let context = try Context(caFile: caFile)
            cache[caFile ?? ""] = context
            return context
        }

        private static let cacheLock = NSLock()
        nonisolated(unsafe) private static var cache: [String: Context] = [:]
    }

    private(set) var fd: Int32 = -1
    private var ssl: OpaquePointer?
    /// Guards `fd` and `ssl` between `close` (the owner's thread) and `interrupt` (any thread).
    private let lock = NSLock()
    private let host: String

    /// OpenSSL writes with write(2), which raises SIGPIPE on a connection the peer closed and would
    /// end the app: the SDK ignores SIGPIPE (once, on its first connection), as networking libraries
    /// on Linux do; the write then fails with EPIPE and the connection is made again.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Connects to `host:port` (TLS with `context`, checking the certificate names `host`).
    init(host: String, port: Int, context: Context?, timeout: Double) throws {
        _ = Self.ignoreBrokenPipes
        self.host = host
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { throw TransportError("cannot resolve \(host)") }
        defer { freeaddrinfo(found) }
        var connected: Int32 = -1
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry, connected < 0 {
            let socket = Glibc.socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            if socket >= 0 {
                var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
                setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                var one: Int32 = 1
                setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                if Glibc.connect(socket, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                    connected = socket
                } else {
                    Glibc.close(socket)
                }
            }
            entry = current.pointee.ai_next
        }
        guard connected >= 0 else { throw TransportError("cannot connect to \(host):\(port)") }
        fd = connected
        guard let context else { return }
        guard let ssl = SSL_new(context.context) else {
            close()
            throw TransportError("SSL_new failed")
        }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        let isAddress = host.contains(":") || host.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }
        let checked = isAddress ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) : SSL_set1_host(ssl, host)
        guard checked == 1, isAddress || pushbus_tls_set_server_name(ssl, host) == 1, SSL_connect(ssl) == 1 else {
            var text = [CChar](repeating: 0, count: 256)
            pushbus_tls_error_text(&text, text.count)
            close()
            throw TransportError("TLS handshake with \(host) failed: \(String(cString: text))")
        }
    }

    deinit { close() }

    /// Writes all of `bytes`; throws when the connection failed.
    func write(_ bytes: [UInt8]) throws {
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

    /// Up to `limit` bytes: nil when the read timed out, throws when the connection ended or failed.
    func read(upTo limit: Int = 16_384) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count: Int = buffer.withUnsafeMutableBytes { raw in
            if let ssl { return Int(SSL_read(ssl, raw.baseAddress, Int32(raw.count))) }
            return recv(fd, raw.baseAddress, raw.count, 0)
        }
        if count > 0 { return Array(buffer[0..<count]) }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return nil }
        throw TransportError("the connection to \(host) ended")
    }

    /// Ends the connection; safe twice. Only from the thread that reads and writes.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        if let ssl {
            SSL_shutdown(ssl)
            SSL_free(ssl)
        }
        ssl = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// From any thread: ends the connection under a read or write that blocks on it (which then
    /// fails), without freeing what that thread is using; it closes the socket itself.
    func interrupt() {
        lock.lock()
        defer { lock.unlock() }
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
    }
}
#endif
