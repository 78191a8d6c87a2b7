import CMicroHTTPD
import Foundation
import Glibc
import Synchronization
import Threads

/// The one HTTP/1.1 server of PushBus (the REST API, the device edge, `/metrics`, the channel's
/// WebSocket handshake), on libmicrohttpd driven by a loop thread of its own: one epoll set over
/// every connection, so a connection that is held open costs a socket and its header memory,
/// never a thread. Each whole request goes to `handler` on that thread; the handler answers at
/// once (it must not block) or hands the request on and answers later from any thread through its
/// `HTTPResponder`, the connection waiting suspended meanwhile (`HandlerPool` runs blocking
/// handlers). Limits: connections in all and per address, an idle timeout, a deadline for each
/// request's head and body, header memory, body size (`HTTPLimits`). TLS with a certificate and key.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest, HTTPResponder) -> Void

    private let bell: Bell
    private let finished = DispatchSemaphore(value: 0)
    /// The port listened on (the one chosen when asked for port 0).
    public let boundPort: Int
    private let loopCounters: Counters

    /// What the server has done, for tests and metrics.
    public final class Counters: Sendable {
        let cutByDeadline = Atomic(0)
        let open = Atomic(0)
        /// Connections cut because their request missed the deadline.
        public var deadlineCuts: Int { cutByDeadline.load(ordering: .relaxed) }
        /// Connections open now (as of the loop's last pass).
        public var connections: Int { open.load(ordering: .relaxed) }
    }

    public var counters: Counters { loopCounters }

    /// Listens on `host:port` (an IPv4 address; port 0 takes a free one) and starts the loop thread
    /// named `name`. Throws `HTTPServerError` when the address cannot be bound, the TLS identity
    /// cannot be used, or the loop cannot be made.
    public init(name: String, host: String, port: Int, limits: HTTPLimits = HTTPLimits(), tls: TLSIdentity? = nil,
                allowUpgrade: Bool = false, handler: @escaping Handler) throws(HTTPServerError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        guard (0...65_535).contains(port), inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw .address("\(host):\(port)")
        }
        address.sin_port = UInt16(port).bigEndian
        if tls != nil, pushbus_mhd_has_tls() == 0 { throw .tls("this libmicrohttpd was built without TLS") }
        let bell = try Bell()
        let counters = Counters()
        let loop = ServerLoop(limits: limits, handler: handler, counters: counters, bell: bell)
        let context = Unmanaged.passRetained(loop)
        let daemon: OpaquePointer? = tls.map { ($0.keyPEM, $0.certificatePEM) }.withCStrings { key, certificate in
            withUnsafePointer(to: &address) { pointer in
                var config = pushbus_mhd_config(
                    address: pointer, handler: accessRequest, context: context.toOpaque(), completed: requestEnded,
                    notify: connectionChanged, connection_limit: UInt32(clamping: limits.maxConnections),
                    per_ip_limit: UInt32(clamping: limits.perAddress), timeout_seconds: UInt32(clamping: limits.idleTimeoutSeconds),
                    memory_limit: max(4096, limits.headerBytes), allow_upgrade: allowUpgrade ? 1 : 0,
                    tls_key_pem: key, tls_cert_pem: certificate)
                return pushbus_mhd_start_loop(&config)
            }
        }
        guard let daemon else {
            context.release()
            throw tls == nil ? .cannotListen("\(host):\(port)") : .tls("libmicrohttpd refused the certificate or key, or cannot listen on \(host):\(port)")
        }
        loop.daemon = daemon
        self.bell = bell
        boundPort = Int(pushbus_mhd_bound_port(daemon))
        loopCounters = counters
        let bits = UInt(bitPattern: context.toOpaque())
        NamedThread.start(name) { [finished] in
            Unmanaged<ServerLoop>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue().run()
            finished.signal()
        }
    }

    deinit { stop() }

    /// Stops taking connections, answers 503 to requests still waiting for an answer, closes every
    /// connection and waits for the loop thread. Safe to call twice; must not be called from a
    /// handler (it waits for the thread handlers run on).
    public func stop() {
        guard bell.requestStop() else { return }
        finished.wait()
    }
}

extension Optional where Wrapped == (String, String) {
    /// Calls `body` with both strings as C strings, or two NULLs.
    fileprivate func withCStrings<R>(_ body: (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> R) -> R {
        guard let (first, second) = self else { return body(nil, nil) }
        return first.withCString { a in second.withCString { b in body(a, b) } }
    }
}

/// What one request collects on the server's thread between its callbacks.
final class Exchange {
    var request: HTTPRequest
    let slot = AnswerSlot()
    /// The handler has been called: later callbacks look for its answer.
    var dispatched = false
    /// Who takes the connection once its upgrade went out.
    var adopt: (@Sendable (UpgradedSocket) -> Void)?

    init(request: HTTPRequest) { self.request = request }
}

/// The loop thread's state: the daemon, the handler, the deadline clock. Every libmicrohttpd
/// callback gets it as its context and runs on the loop thread, so nothing here is shared.
final class ServerLoop {
    var daemon: OpaquePointer?
    let limits: HTTPLimits
    let handler: HTTPServer.Handler
    let counters: HTTPServer.Counters
    let suspensions: Suspensions
    let bell: Bell
    var clock = ConnectionClock()
    /// Requests waiting suspended, so that a stop can answer them.
    var suspended: [UInt: Exchange] = [:]
    var now = MonotonicSeconds.now()

    /// How often the deadline clock is read.
    static let sweepSeconds = 0.5
    /// How long a stop waits for answered requests to be written before it closes everything.
    static let drainSeconds = 2.0

    init(limits: HTTPLimits, handler: @escaping HTTPServer.Handler, counters: HTTPServer.Counters, bell: Bell) {
        self.bell = bell
        suspensions = Suspensions(bell: bell)
        self.limits = limits
        self.handler = handler
        self.counters = counters
    }

    func run() {
        guard let daemon else { return }
        var fds = [pollfd(fd: pushbus_mhd_epoll_fd(daemon), events: Int16(POLLIN), revents: 0),
                   pollfd(fd: bell.fd, events: Int16(POLLIN), revents: 0)]
        var nextSweep = now + Self.sweepSeconds
        while true {
            let mhd = pushbus_mhd_timeout(daemon)
            let sweep = Int32(max(0, ((nextSweep - now) * 1000).rounded(.up)))
            let wait = mhd < 0 ? sweep : min(sweep, Int32(clamping: mhd))
            _ = poll(&fds, 2, wait)
            now = MonotonicSeconds.now()
            if fds[1].revents != 0, bell.answer() { break }
            MHD_run(daemon)
            if now >= nextSweep {
                clock.cutOverdue(now: now, deadline: limits.requestDeadlineSeconds, responseDeadline: limits.responseDeadlineSeconds)
                counters.cutByDeadline.store(clock.cut, ordering: .relaxed)
                counters.open.store(clock.count, ordering: .relaxed)
                nextSweep = now + Self.sweepSeconds
            }
        }
        shutDown(daemon)
    }

    /// Stops listening, answers 503 to every request still waiting, gives the answers a moment to
    /// be written, then stops the daemon (which closes every connection).
    private func shutDown(_ daemon: OpaquePointer) {
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }
        for connection in suspensions.close() {
            guard let exchange = suspended[connection], let pointer = OpaquePointer(bitPattern: connection) else { continue }
            _ = exchange.slot.answer(.response(.text(503, "the server is stopping\n")))
            MHD_resume_connection(pointer)
        }
        let until = MonotonicSeconds.now() + Self.drainSeconds
        while !suspended.isEmpty, MonotonicSeconds.now() < until {
            MHD_run(daemon)
            usleep(1000)
        }
        MHD_stop_daemon(daemon)
        self.daemon = nil
    }

    // MARK: requests

    /// The first callback of a request (its head is in): its exchange, answered at once when its
    /// Content-Length is over the limit.
    func begin(_ connection: OpaquePointer, method: String, url: String) -> Exchange {
        let peer = Self.peer(connection)
        var request = HTTPRequest(method: method, path: url, query: Self.values(connection, kind: MHD_ValueKind(rawValue: 8)!),
                                  headers: Self.values(connection, kind: MHD_ValueKind(rawValue: 1)!), peer: peer.address)
        request.peerPort = peer.port
        if let length = request.header("Content-Length").flatMap(Int.init), length > limits.maxBodyBytes { request.bodyTooLarge = true }
        return Exchange(request: request)
    }

    /// A piece of the body.
    func receive(_ exchange: Exchange, _ bytes: UnsafeRawBufferPointer) {
        guard !exchange.request.bodyTooLarge else { return }
        guard exchange.request.body.count + bytes.count <= limits.maxBodyBytes else {
            exchange.request.bodyTooLarge = true
            exchange.request.body = Data()
            return
        }
        exchange.request.body.append(contentsOf: bytes)
    }

    /// The request is whole (or refused by its length): the handler's turn, or, after a resume, its answer's.
    func answer(_ exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        let key = UInt(bitPattern: connection)
        let answer: AnswerSlot.Answer
        if exchange.dispatched {
            suspended[key] = nil
            guard let taken = exchange.slot.take() else { return mhdNo }
            answer = taken
        } else {
            exchange.dispatched = true
            clock.set(key, .answering, now: now)
            handler(exchange.request, HTTPResponder(slot: exchange.slot, connection: key, suspensions: suspensions))
            guard let taken = exchange.slot.takeOrSuspend({ suspensions.suspend(connection) }) else {
                suspended[key] = exchange
                return mhdYes
            }
            answer = taken
        }
        switch answer {
        case .response(let response):
            clock.set(key, .sending, now: now)
            return Self.queue(response, on: connection)
        case .upgrade(let headers, let adopt):
            exchange.adopt = adopt
            guard let response = MHD_create_response_for_upgrade(upgraded, Unmanaged.passUnretained(self).toOpaque()) else { return mhdNo }
            defer { MHD_destroy_response(response) }
            for (name, value) in headers { MHD_add_response_header(response, name, value) }
            return MHD_queue_response(connection, 101, response)
        }
    }

    static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made = response.body.withUnsafeBytes { pushbus_mhd_copied_response($0.baseAddress, $0.count) }
        guard let made else { return mhdNo }
        defer { MHD_destroy_response(made) }
        for header in response.headers { MHD_add_response_header(made, header.name, header.value) }
        return MHD_queue_response(connection, UInt32(clamping: response.status), made)
    }

    private static func values(_ connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
        final class Collected { var items: [(name: String, value: String)] = [] }
        let collected = Collected()
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return mhdYes }
            Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue().items.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return mhdYes
        }, Unmanaged.passUnretained(collected).toOpaque())
        return withExtendedLifetime(collected) { collected.items }
    }

    private static func peer(_ connection: OpaquePointer) -> (address: String, port: Int) {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var port: UInt16 = 0
        guard pushbus_mhd_client_address(connection, &text, socklen_t(text.count), &port) != 0 else { return ("", 0) }
        return (text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, Int(port))
    }
}

/// The loop's clock: monotonic seconds.
enum MonotonicSeconds {
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

let mhdYes = MHD_Result(rawValue: 1)!
let mhdNo = MHD_Result(rawValue: 0)!

private func loop(_ context: UnsafeMutableRawPointer?) -> ServerLoop? {
    context.map { Unmanaged<ServerLoop>.fromOpaque($0).takeUnretainedValue() }
}

/// libmicrohttpd's request callback: once when the head is in, once per piece of body, once when
/// the body is whole, and once more after a resume.
private let accessRequest: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, slot in
    guard let loop = loop(context), let connection, let url, let method, let size, let slot else { return mhdNo }
    guard let pending = slot.pointee else {
        let exchange = loop.begin(connection, method: String(cString: method), url: String(cString: url))
        slot.pointee = Unmanaged.passRetained(exchange).toOpaque()
        return exchange.request.bodyTooLarge ? loop.answer(exchange, on: connection) : mhdYes
    }
    let exchange = Unmanaged<Exchange>.fromOpaque(pending).takeUnretainedValue()
    if size.pointee > 0 {
        if let data { loop.receive(exchange, UnsafeRawBufferPointer(start: data, count: size.pointee)) }
        size.pointee = 0
        return mhdYes
    }
    return loop.answer(exchange, on: connection)
}

/// A request ended (answered, or its connection failed): its exchange goes, and the connection's
/// next request starts its clock.
private let requestEnded: MHD_RequestCompletedCallback = { context, connection, slot, _ in
    guard let loop = loop(context) else { return }
    if let connection {
        loop.clock.set(UInt(bitPattern: connection), .receiving, now: loop.now)
        loop.suspended[UInt(bitPattern: connection)] = nil
    }
    guard let slot, let pending = slot.pointee else { return }
    Unmanaged<Exchange>.fromOpaque(pending).release()
    slot.pointee = nil
}

/// A connection opened or closed (libmicrohttpd tells before it closes the socket).
private let connectionChanged: MHD_NotifyConnectionCallback = { context, connection, _, code in
    guard let loop = loop(context), let connection else { return }
    let key = UInt(bitPattern: connection)
    if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        loop.clock.opened(key, fd: pushbus_mhd_connection_fd(connection), now: MonotonicSeconds.now())
    } else {
        loop.clock.closed(key)
    }
}

/// libmicrohttpd's upgrade callback, after the 101 went out: the handler's `adopt` takes the socket.
private let upgraded: MHD_UpgradeHandler = { context, connection, slot, extraIn, extraSize, socket, handle in
    guard let loop = loop(context), let connection, let slot, let handle else { return }
    loop.clock.set(UInt(bitPattern: connection), .upgraded, now: loop.now)
    let exchange = Unmanaged<Exchange>.fromOpaque(slot).takeUnretainedValue()
    guard let adopt = exchange.adopt else {
        _ = pushbus_mhd_upgrade_close(handle)
        return
    }
    let extra = extraSize > 0 && extraIn != nil ? Array(UnsafeRawBufferPointer(start: extraIn, count: extraSize)) : []
    let peer = exchange.request.peer.contains(":") ? "[\(exchange.request.peer)]" : exchange.request.peer
    adopt(UpgradedSocket(fd: socket, handle: handle, extra: extra, peer: "\(peer):\(exchange.request.peerPort)"))
}
