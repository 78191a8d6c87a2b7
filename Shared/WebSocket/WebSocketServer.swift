import CMicroHTTPD
import Foundation
import Glibc

/// An RFC 6455 server for text messages. libmicrohttpd's internal thread (epoll) accepts
/// connections and answers the HTTP handshake; each upgraded socket then belongs to the server's
/// own loop thread, which frames, pings, rate-limits and closes it and calls the delegate. Other
/// threads reach the loop only through a mailbox, so `send`, `close` and `connectionCount` are safe
/// from anywhere and never wait on a socket. The server holds its delegate strongly from `init` until
/// `stop()` returns and then lets it go, so the delegate may hold the server strongly.
public final class WebSocketServer: @unchecked Sendable {
    private let host: String
    private let port: Int
    private let path: String
    private let limits: WebSocketLimits
    private var delegate: WebSocketDelegate?

    private let lock = NSLock()
    private var daemon: OpaquePointer?
    private var gate: UpgradeGate?
    private var thread: pthread_t?
    private var started = false
    private var bound = 0

    /// A server for `ws://host:port/path` (`host` an IPv4 address). Nothing is bound until `start()`.
    public init(host: String, port: Int, path: String, limits: WebSocketLimits = WebSocketLimits(),
                delegate: WebSocketDelegate) {
        self.host = host
        self.port = port
        self.path = path
        self.limits = limits
        self.delegate = delegate
    }

    deinit { stop() }

    /// Binds (SO_REUSEPORT, so several processes can share the port), then starts libmicrohttpd's
    /// thread and the loop thread; returns at once. Port 0 takes a free port (see `boundPort`).
    /// Throws `WebSocketError.cannotListen` when the address cannot be bound, `.loop` when epoll,
    /// the eventfd or the thread cannot be made. Call it once.
    public func start() throws {
        try lock.withLock {
            precondition(!started, "WebSocketServer.start() called twice")
            started = true
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            guard (0...65_535).contains(port), inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                throw WebSocketError.cannotListen("\(host):\(port)")
            }
            address.sin_port = UInt16(port).bigEndian
            let mailbox = try Mailbox()
            guard let delegate else { throw WebSocketError.loop("no delegate") }
            self.delegate = nil
            let loop = try EventLoop(mailbox: mailbox, limits: limits, delegate: delegate)
            let gate = UpgradeGate(path: path, mailbox: mailbox)
            let context = Unmanaged.passUnretained(gate).toOpaque()
            guard let daemon = pushbus_mhd_start_upgrading(&address, upgradeRequest, context, UInt32(clamping: limits.maxConnections),
                                                           UInt32(clamping: limits.handshakeTimeout),
                                                           max(1_024, limits.handshakeMemory)) else {
                throw WebSocketError.cannotListen("\(host):\(port)")
            }
            var thread = pthread_t()
            let retained = Unmanaged.passRetained(loop).toOpaque()
            let made = pthread_create(&thread, nil, { argument in
                Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue().run()
                return nil
            }, retained)
            guard made == 0 else {
                Unmanaged<EventLoop>.fromOpaque(retained).release()
                MHD_stop_daemon(daemon)
                throw WebSocketError.loop("pthread_create: \(made)")
            }
            self.daemon = daemon
            self.gate = gate
            self.thread = thread
            bound = Int(pushbus_mhd_bound_port(daemon))
        }
    }

    /// The port listened on (the one chosen when `port` was 0); 0 before `start()`.
    public var boundPort: Int { lock.withLock { bound } }

    /// Queues `text` as one text frame for `connection`, after what is already queued. Returns at
    /// once; an unknown or closed connection is ignored. A connection whose queue would pass
    /// `maxQueuedBytes` is closed with 1008 "slow reader" instead.
    public func send(_ text: String, to connection: ConnectionID) {
        let frame = WebSocketFrame.encode(opcode: .text, payload: text.utf8)
        lock.withLock { gate }?.mailbox.post(.send(connection, frame))
    }

    /// Closes `connection` with `code` (one a peer may receive: 1000–1003, 1007–1011, 3000–4999) and
    /// `reason`: the close frame follows what is already queued, then the socket closes. The delegate
    /// hears `closed` with the same code. Returns at once; an unknown or closed connection is ignored.
    public func close(_ connection: ConnectionID, code: UInt16, reason: String) {
        lock.withLock { gate }?.mailbox.post(.close(connection, code: code, reason: reason))
    }

    /// Connections open now (as of the loop's last pass).
    public var connectionCount: Int { lock.withLock { gate }?.mailbox.connectionCount ?? 0 }

    /// Outgoing bytes queued in the server across all connections (as of the loop's last pass); each
    /// connection's share stays within `maxQueuedBytes` plus a close frame.
    public var queuedBytes: Int { lock.withLock { gate }?.mailbox.queuedBytes ?? 0 }

    /// Closes every connection (1001 "going away", the delegate told), stops both threads and waits
    /// for them. Safe to call twice, and before `start()`; must not be called from a delegate callback
    /// (it waits for the thread that runs them).
    public func stop() {
        let (daemon, gate, thread): (OpaquePointer?, UpgradeGate?, pthread_t?) = lock.withLock {
            defer {
                self.daemon = nil
                self.thread = nil
            }
            return (self.daemon, self.gate, self.thread)
        }
        guard let daemon, let gate, let thread else { return }
        precondition(pthread_equal(thread, pthread_self()) == 0, "WebSocketServer.stop() called from its own loop thread")
        gate.mailbox.post(.stop)
        pthread_join(thread, nil)
        MHD_stop_daemon(daemon)
    }
}
