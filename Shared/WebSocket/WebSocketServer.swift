import CMicroHTTPD
import Foundation
import Glibc
import HTTP
import Threads

/// An RFC 6455 server for text messages. The shared HTTP server (`HTTPServer`) accepts connections
/// and answers the HTTP handshake, with its limits on connections per address and on how long a
/// handshake may take; each upgraded socket then belongs to this server's own loop thread, which
/// frames, pings, rate-limits and closes it and calls the delegate. Other threads reach the loop
/// only through a mailbox, so `send`, `close` and `connectionCount` are safe from anywhere and never
/// wait on a socket. The server holds its delegate strongly from `init` until `stop()` returns and
/// then lets it go, so the delegate may hold the server strongly.
public final class WebSocketServer: @unchecked Sendable {
    private let host: String
    private let port: Int
    private let path: String
    private let limits: WebSocketLimits
    private let tls: TLSIdentity?
    private var delegate: WebSocketDelegate?

    private let lock = NSLock()
    private var http: HTTPServer?
    private var inbox: Inbox<LoopCommand>?
    private let figures = LoopFigures()
    private var thread: pthread_t?
    private var started = false

    /// A server for `ws://host:port/path` (`wss://` with `tls`; `host` an IPv4 address). Nothing is
    /// bound until `start()`.
    public init(host: String, port: Int, path: String, limits: WebSocketLimits = WebSocketLimits(), tls: TLSIdentity? = nil,
                delegate: WebSocketDelegate) {
        self.host = host
        self.port = port
        self.path = path
        self.limits = limits
        self.tls = tls
        self.delegate = delegate
    }

    deinit { stop() }

    /// Binds (SO_REUSEPORT, so several processes can share the port), then starts the HTTP server's
    /// thread and the loop thread; returns at once. Port 0 takes a free port (see `boundPort`).
    /// Throws `WebSocketError.cannotListen` when the address cannot be bound or the TLS identity
    /// cannot be used, `.loop` when epoll, the eventfd or the thread cannot be made. Call it once.
    public func start() throws {
        try lock.withLock {
            precondition(!started, "WebSocketServer.start() called twice")
            started = true
            let inbox = Inbox<LoopCommand>()
            guard let delegate else { throw WebSocketError.loop("no delegate") }
            self.delegate = nil
            let loop = try EventLoop(inbox: inbox, figures: figures, limits: limits, delegate: delegate)
            let http: HTTPServer
            do {
                http = try HTTPServer(name: "ws-http", host: host, port: port, limits: limits.handshake, tls: tls, allowUpgrade: true) {
                    [path] request, responder in
                    switch WebSocketHandshake.answer(method: request.method, path: request.path, expectedPath: path, header: request.header) {
                    case .upgrade(let accept):
                        responder.upgrade(headers: [("Upgrade", "websocket"), ("Sec-WebSocket-Accept", accept)]) { socket in
                            // Once the loop has closed its inbox (the server is stopping) the socket is
                            // left to the HTTP server's stop, which closes upgraded sockets still open.
                            inbox.post(.adopt(socket))
                        }
                    case .reject(let status, let body, let headers):
                        responder.respond(.text(Int(status), body, headers: headers.map { ($0.key, $0.value) }))
                    }
                }
            } catch {
                if case HTTPServerError.loop(let reason) = error { throw WebSocketError.loop(reason) }
                throw WebSocketError.cannotListen("\(host):\(port): \(error)")
            }
            var thread = pthread_t()
            let retained = Unmanaged.passRetained(loop).toOpaque()
            let made = pthread_create(&thread, nil, { argument in
                Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue().run()
                return nil
            }, retained)
            guard made == 0 else {
                Unmanaged<EventLoop>.fromOpaque(retained).release()
                http.stop()
                throw WebSocketError.loop("pthread_create: \(made)")
            }
            self.http = http
            self.inbox = inbox
            self.thread = thread
        }
    }

    /// The port listened on (the one chosen when `port` was 0); 0 before `start()`.
    public var boundPort: Int { lock.withLock { http?.boundPort ?? 0 } }

    /// Queues `text` as one text frame for `connection`, after what is already queued. Returns at
    /// once; an unknown or closed connection is ignored. A connection whose queue would pass
    /// `maxQueuedBytes` is closed with 1008 "slow reader" instead.
    public func send(_ text: String, to connection: ConnectionID) {
        let frame = WebSocketFrame.encode(opcode: .text, payload: text.utf8)
        lock.withLock { inbox }?.post(.send(connection, frame))
    }

    /// Closes `connection` with `code` (one a peer may receive: 1000–1003, 1007–1011, 3000–4999) and
    /// `reason`: the close frame follows what is already queued, then the socket closes. The delegate
    /// hears `closed` with the same code. Returns at once; an unknown or closed connection is ignored.
    public func close(_ connection: ConnectionID, code: UInt16, reason: String) {
        lock.withLock { inbox }?.post(.close(connection, code: code, reason: reason))
    }

    /// Connections open now (as of the loop's last pass).
    public var connectionCount: Int { figures.connections }

    /// Outgoing bytes queued in the server across all connections (as of the loop's last pass); each
    /// connection's share stays within `maxQueuedBytes` plus a close frame.
    public var queuedBytes: Int { figures.queuedBytes }

    /// Closes every connection (1001 "going away", the delegate told), stops both threads and waits
    /// for them. Safe to call twice, and before `start()`; must not be called from a delegate callback
    /// (it waits for the thread that runs them).
    public func stop() {
        let (http, inbox, thread): (HTTPServer?, Inbox<LoopCommand>?, pthread_t?) = lock.withLock {
            defer {
                self.http = nil
                self.thread = nil
            }
            return (self.http, self.inbox, self.thread)
        }
        guard let http, let inbox, let thread else { return }
        precondition(pthread_equal(thread, pthread_self()) == 0, "WebSocketServer.stop() called from its own loop thread")
        inbox.post(.stop)
        pthread_join(thread, nil)
        http.stop()
    }
}
