import CNGHTTP2
import CTLS
import Foundation
import Glibc

/// One HTTP/2 connection to an origin: a non-blocking socket, OpenSSL on it for https (nothing for
/// h2c), and an nghttp2 client session fed by `mem_recv` and drained by `mem_send`. Created,
/// driven and closed by the loop thread only; nghttp2 calls back into it (`SessionCallbacks`)
/// from inside `mem_recv` and `mem_send`, on that thread.
final class Connection {
    enum State { case connecting, handshaking, open, closed }

    let fd: Int32
    unowned let origin: Origin
    unowned let loop: EventLoop
    private(set) var state = State.connecting
    private var ssl: OpaquePointer?
    private var session: OpaquePointer?
    let openedAt: Double
    /// Every stream nghttp2 has open, with the exchange it was opened for. An exchange that has
    /// ended or moved to another connection stays here until nghttp2 closes its stream, so the
    /// pointers nghttp2 holds stay valid; `carried(_:)` tells the two apart.
    private(set) var streams: [Int32: Exchange] = [:]
    /// Bytes nghttp2 has serialized, and bytes the socket (or OpenSSL) has taken, since the start.
    private(set) var produced = 0
    private(set) var written = 0
    private var output: UnsafeMutablePointer<UInt8>
    private var outputCapacity = 1 << 17
    private var outputStart = 0
    private var outputEnd = 0
    private var watchingWrites = true
    private var readWaitsForWrite = false
    /// The server's first SETTINGS has come. No stream opens before it: the server may allow only
    /// one (APNs, before a provider token is accepted) or shrink the windows a body was sent on.
    private(set) var settled = false
    /// A GOAWAY came: no new streams; the connection closes once its streams have.
    private(set) var goingAway = false
    /// A response came on it: the origin's reconnect backoff starts over.
    private(set) var answered = false
    /// Set-up finished (TCP, TLS and ALPN): a connection that fails before this counts as failed.
    private(set) var wasOpened = false
    private var lastReceived: Double
    private var lastPing: Double
    private var pingSentAt: Double?
    /// Why it must close, set where closing at once is not safe (inside nghttp2's callbacks).
    private(set) var failure: String?
    /// A GOAWAY's error and debug data, when it came with an error.
    private(set) var goawayReason: String?

    /// Starts connecting to `address`; throws when not even a socket could be made. A later
    /// failure (refused, TLS) is kept in `failure` for the loop to close it.
    init(origin: Origin, loop: EventLoop, address: UnsafePointer<sockaddr>, length: socklen_t, family: Int32) throws(HTTP2Error) {
        self.origin = origin
        self.loop = loop
        openedAt = loop.now
        lastReceived = loop.now
        lastPing = loop.now
        output = .allocate(capacity: outputCapacity)
        fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            output.deallocate()
            throw .setup("socket: \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if connect(fd, address, length) != 0 && errno != EINPROGRESS {
            fail("connect: \(String(cString: strerror(errno)))")
        }
        if origin.target.secure {
            ssl = loop.tls.session(fd: fd, host: origin.target.host)
            if ssl == nil { fail("TLS set-up for \(origin.target.host): \(TLSContext.lastError())") }
        }
        startSession()
    }

    deinit { output.deallocate() }

    private func startSession() {
        let created = nghttp2_session_client_new(&session, loop.callbacks, Unmanaged.passUnretained(self).toOpaque())
        guard created == 0, let session else {
            fail("nghttp2_session_client_new: \(String(cString: nghttp2_strerror(created)))")
            return
        }
        let window = UInt32(clamping: min(loop.options.receiveWindow, Int(Int32.max)))
        let settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: window),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(window))
    }

    // MARK: What the origin asks

    /// Streams it may open now: none while setting up, going away, failed or waiting for the
    /// server's SETTINGS; then the lower of the client's cap and the server's, less those open.
    var freeStreams: Int {
        guard state == .open, settled, !goingAway, failure == nil, let session else { return 0 }
        let remote = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return max(0, min(loop.options.maxStreams, remote) - streams.count)
    }

    /// Still setting up, or open but without the server's SETTINGS yet: capacity is on its way.
    var isPending: Bool { failure == nil && !goingAway && (state != .open || !settled) }

    var isGoingAway: Bool { goingAway }

    /// Nothing left to do on it: going away with every stream closed, or nghttp2 done with the session.
    var isFinished: Bool {
        guard state == .open, let session else { return false }
        if goingAway && streams.isEmpty { return true }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// Whether `exchange` is still carried by this connection on `streamID`.
    func carried(_ exchange: Exchange, on streamID: Int32) -> Bool { exchange.connection === self && exchange.streamID == streamID }

    /// Opens a stream for `exchange`; call `flush()` after a run of these.
    func submit(_ exchange: Exchange) {
        guard let session else { return origin.requeue(exchange) }
        let user = Unmanaged.passUnretained(exchange).toOpaque()
        let id: Int32 = loop.headers.with(exchange, scheme: origin.target.secure ? "https" : "http", authority: origin.target.authority) { fields, count in
            guard !exchange.request.body.isEmpty else { return nghttp2_submit_request(session, nil, fields, count, nil, user) }
            var provider = nghttp2_data_provider()
            provider.source.ptr = user
            provider.read_callback = { session, streamID, buffer, length, flags, source, _ in
                guard let pointer = source?.pointee.ptr, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
                let exchange = Unmanaged<Exchange>.fromOpaque(pointer).takeUnretainedValue()
                // A stream left behind by its exchange (moved on, or ended) sends nothing more: nghttp2 resets it.
                guard let connection = exchange.connection, connection.carried(exchange, on: streamID) else {
                    return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
                }
                let count = exchange.readBody(into: buffer, length)
                if exchange.bodyDone { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
                return count
            }
            return nghttp2_submit_request(session, nil, fields, count, &provider, user)
        }
        guard id > 0 else {
            if id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue {
                goingAway = true
                origin.requeue(exchange)
            } else {
                exchange.end(.notSent("nghttp2 refused the request: \(String(cString: nghttp2_strerror(id)))"))
            }
            return
        }
        exchange.connection = self
        exchange.streamID = id
        exchange.streamDeadline = loop.now + loop.options.streamTimeout
        streams[id] = exchange
    }

    // MARK: Events

    func handle(_ events: UInt32) {
        let readable = events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        let writable = events & (EPOLLOUT.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        switch state {
        case .connecting: if writable { connected() }
        case .handshaking: handshake()
        case .open:
            if readable || (writable && readWaitsForWrite) { receive() }
            if writable { flush() }
        case .closed: break
        }
    }

    private func connected() {
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
        guard error == 0 else { return fail("connect to \(origin.target.authority): \(String(cString: strerror(error)))") }
        if ssl != nil {
            state = .handshaking
            handshake()
        } else {
            opened()
        }
    }

    private func handshake() {
        guard let ssl else { return }
        let result = SSL_connect(ssl)
        guard result == 1 else {
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ: watch(writes: false)
            case SSL_ERROR_WANT_WRITE: watch(writes: true)
            default:
                let verify = SSL_get_verify_result(ssl)
                let detail = verify == X509_V_OK ? TLSContext.lastError() : String(cString: X509_verify_cert_error_string(verify))
                fail("TLS handshake with \(origin.target.authority) failed: \(detail.isEmpty ? "connection closed" : detail)")
            }
            return
        }
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard length == 2, let protocolName, protocolName[0] == UInt8(ascii: "h"), protocolName[1] == UInt8(ascii: "2") else {
            let picked = protocolName.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self) } ?? ""
            return fail("\(origin.target.authority) did not pick h2 in ALPN (\(picked.isEmpty ? "no protocol" : picked))")
        }
        opened()
    }

    private func opened() {
        state = .open
        wasOpened = true
        lastReceived = loop.now
        lastPing = loop.now
        loop.counters.update { $0.connectionsOpened += 1 }
        flush()
    }

    /// Reads whatever the socket has and feeds it to nghttp2, then writes what that produced.
    private func receive() {
        guard let session else { return }
        readWaitsForWrite = false
        let buffer = loop.readBuffer
        let size = loop.readSize
        while state == .open && failure == nil {
            let count: Int
            if let ssl {
                let result = SSL_read(ssl, buffer, Int32(size))
                if result <= 0 {
                    switch SSL_get_error(ssl, result) {
                    case SSL_ERROR_WANT_READ: break
                    case SSL_ERROR_WANT_WRITE:
                        readWaitsForWrite = true
                        watch(writes: true)
                    case SSL_ERROR_ZERO_RETURN: fail("closed by the server")
                    case SSL_ERROR_SYSCALL: fail(errno == 0 ? "closed by the server" : "read: \(String(cString: strerror(errno)))")
                    default: fail("TLS read: \(TLSContext.lastError())")
                    }
                    break
                }
                count = Int(result)
            } else {
                let result = recv(fd, buffer, size, 0)
                if result == 0 { fail("closed by the server"); break }
                if result < 0 {
                    if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { fail("recv: \(String(cString: strerror(errno)))") }
                    break
                }
                count = result
            }
            lastReceived = loop.now
            let consumed = nghttp2_session_mem_recv(session, buffer, count)
            if consumed < 0 { fail("HTTP/2 framing: \(String(cString: nghttp2_strerror(Int32(consumed))))"); break }
            if ssl == nil && count < size { break }
        }
        flush()
    }

    /// Writes out what nghttp2 has to send, gathered into one buffer per write; waits for EPOLLOUT
    /// when the socket is full.
    func flush() {
        guard state == .open, let session else { return }
        while true {
            if outputStart == outputEnd {
                outputStart = 0
                outputEnd = 0
                while outputEnd < 65_536 {
                    var data: UnsafePointer<UInt8>?
                    let count = nghttp2_session_mem_send(session, &data)
                    if count < 0 { return fail("HTTP/2: \(String(cString: nghttp2_strerror(Int32(count))))") }
                    guard count > 0, let data else { break }
                    reserve(outputEnd + count)
                    (output + outputEnd).update(from: data, count: count)
                    outputEnd += count
                    produced += count
                }
                if outputEnd == 0 { break }
            }
            let sent = send(output + outputStart, outputEnd - outputStart)
            if sent < 0 { return }
            if sent == 0 { return watch(writes: true) }
            outputStart += sent
            written += sent
        }
        watch(writes: readWaitsForWrite)
    }

    /// Bytes taken by the socket, 0 when it is full, -1 after a failure.
    private func send(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
        if let ssl {
            let result = SSL_write(ssl, bytes, Int32(min(count, Int(Int32.max))))
            if result > 0 { return Int(result) }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ: return 0
            default:
                fail("TLS write: \(TLSContext.lastError().isEmpty ? String(cString: strerror(errno)) : TLSContext.lastError())")
                return -1
            }
        }
        let result = Glibc.send(fd, bytes, count, Int32(MSG_NOSIGNAL))
        if result >= 0 { return result }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
        fail("send: \(String(cString: strerror(errno)))")
        return -1
    }

    private func reserve(_ capacity: Int) {
        guard capacity > outputCapacity else { return }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity, outputCapacity * 2))
        larger.update(from: output, count: outputEnd)
        output.deallocate()
        output = larger
        outputCapacity = max(capacity, outputCapacity * 2)
    }

    private func watch(writes: Bool) {
        guard writes != watchingWrites, state != .closed else { return }
        watchingWrites = writes
        loop.watch(fd, writes: writes, adding: false)
    }

    // MARK: Timers

    /// Connect timeout, PING when quiet, PING ACK overdue, streams past their timeout.
    func sweep() {
        let now = loop.now
        let options = loop.options
        switch state {
        case .connecting, .handshaking:
            if now - openedAt >= options.connectTimeout { fail("no connection to \(origin.target.authority) within \(options.connectTimeout) s") }
        case .open:
            guard let session else { return }
            // A timer about to fire reads the socket first: a process that was stopped (SIGSTOP) or
            // starved of the CPU wakes with its clock far ahead, and the PING ACK and the answers it
            // waits for may be sitting in the socket, unread. Judged on the clock alone, a live
            // connection would be taken for dead and its answered streams sent again.
            let pingOverdue = pingSentAt.map { now - $0 >= options.pingTimeout } ?? false
            if pingOverdue || streams.contains(where: { $0.value.streamDeadline <= now }) {
                receive()
                guard state == .open, failure == nil else { return }
            }
            if let sent = pingSentAt {
                if now - sent >= options.pingTimeout { return fail("no PING ACK within \(options.pingTimeout) s") }
            } else {
                let outstanding = streams.contains { carried($0.value, on: $0.key) }
                if outstanding ? now - lastReceived >= options.pingInterval : now - max(lastReceived, lastPing) >= options.idlePingInterval {
                    nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
                    pingSentAt = now
                    lastPing = now
                    loop.counters.update { $0.pingsSent += 1 }
                }
            }
            for (id, exchange) in streams where carried(exchange, on: id) {
                // HEADERS still queued inside nghttp2 (the server lowered its limit under it) past the
                // send deadline: nghttp2 drops them rather than reset a stream the server never saw.
                let unsentTooLong = exchange.headerOffset < 0 && exchange.sendDeadline <= now
                guard unsentTooLong || exchange.streamDeadline <= now else { continue }
                nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
                loop.counters.update { $0.streamsCancelled += 1 }
                if exchange.isWritten {
                    exchange.end(.lost("no response within \(options.streamTimeout) s"))
                } else {
                    exchange.end(.notSent("not written within \(unsentTooLong ? options.sendTimeout : options.streamTimeout) s"))
                }
            }
            flush()
        case .closed: break
        }
    }

    // MARK: Closing

    /// Marks the connection for closing; the loop closes it after the current event.
    func fail(_ reason: String) {
        if failure == nil { failure = reason }
    }

    /// Ends the connection: streams it may have written end `.lost`, the others go back to their
    /// origin's queue. Frees the session, TLS and socket.
    func close(_ reason: String) {
        guard state != .closed else { return }
        for (id, exchange) in streams.sorted(by: { $0.key > $1.key }) where carried(exchange, on: id) {
            if exchange.isWritten {
                exchange.end(.lost(reason))
            } else {
                exchange.detach()
                origin.requeue(exchange)
            }
        }
        streams = [:]
        state = .closed
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        Glibc.close(fd)
    }
}

// MARK: - nghttp2's callbacks, on the loop thread inside mem_recv and mem_send

extension Connection {
    /// The exchange this connection still carries on `streamID`, or nil.
    private func exchange(_ streamID: Int32) -> Exchange? {
        guard let session, let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
        let exchange = Unmanaged<Exchange>.fromOpaque(pointer).takeUnretainedValue()
        return carried(exchange, on: streamID) ? exchange : nil
    }

    func header(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), let exchange = exchange(frame.pointee.hd.stream_id) else { return }
        if name.first == UInt8(ascii: ":") {
            guard name.count == 7, name.elementsEqual(":status".utf8) else { return }
            exchange.status = value.reduce(0) { $0 * 10 + Int($1) - 48 }
            // An interim (1xx) response's headers are not the final one's.
            exchange.headers = [:]
            return
        }
        if let kept = loop.options.responseHeaders, !kept.contains(where: { $0.utf8.elementsEqual(name) }) { return }
        exchange.headers[String(decoding: name, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
    }

    func data(_ streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        exchange(streamID)?.body.append(bytes)
    }

    func received(_ frame: UnsafePointer<nghttp2_frame>) {
        let head = frame.pointee.hd
        switch UInt32(head.type) {
        case NGHTTP2_SETTINGS.rawValue:
            if head.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { settled = true }
        case NGHTTP2_PING.rawValue:
            if head.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 { pingSentAt = nil }
        case NGHTTP2_RST_STREAM.rawValue:
            loop.counters.update { $0.streamsReset += 1 }
        case NGHTTP2_GOAWAY.rawValue:
            loop.counters.update { $0.goawaysSeen += 1 }
            goingAway = true
            let goaway = frame.pointee.goaway
            if goaway.error_code != NGHTTP2_NO_ERROR.rawValue {
                // APNs says why in the debug data ({"reason":"..."}): kept for the streams that end with the connection.
                let debug = goaway.opaque_data.map { String(decoding: UnsafeBufferPointer(start: $0, count: min(goaway.opaque_data_len, 256)), as: UTF8.self) } ?? ""
                goawayReason = "GOAWAY \(String(cString: nghttp2_http2_strerror(goaway.error_code)))\(debug.isEmpty ? "" : " \(debug)")"
            }
            // The server promises it has not processed these (RFC 9113 §6.8): they go again elsewhere.
            let last = frame.pointee.goaway.last_stream_id
            for (id, exchange) in streams.sorted(by: { $0.key > $1.key }) where id > last && carried(exchange, on: id) {
                exchange.detach()
                origin.requeue(exchange)
            }
        case NGHTTP2_HEADERS.rawValue, NGHTTP2_DATA.rawValue:
            if head.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, let exchange = exchange(head.stream_id), exchange.status >= 200 {
                answered = true
                exchange.complete = true
            }
        default: break
        }
    }

    func sent(_ frame: UnsafePointer<nghttp2_frame>) {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), let exchange = exchange(frame.pointee.hd.stream_id) else { return }
        // Its bytes are in the chunk mem_send is returning, which starts at `produced`.
        exchange.headerOffset = produced
    }

    func notSent(_ frame: UnsafePointer<nghttp2_frame>) {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), let exchange = exchange(frame.pointee.hd.stream_id) else { return }
        exchange.detach()
        origin.requeue(exchange)
    }

    func closed(_ streamID: Int32, code: UInt32) {
        guard let exchange = streams.removeValue(forKey: streamID), carried(exchange, on: streamID) else { return }
        if exchange.complete {
            exchange.endAnswered()
        } else if code == NGHTTP2_REFUSED_STREAM.rawValue {
            // Refused streams were never processed (RFC 9113 §8.7).
            exchange.detach()
            origin.requeue(exchange)
        } else if code != NGHTTP2_NO_ERROR.rawValue {
            exchange.end(.lost("stream reset: \(String(cString: nghttp2_http2_strerror(code)))"))
        } else {
            exchange.end(.lost("stream closed without a response"))
        }
    }
}
