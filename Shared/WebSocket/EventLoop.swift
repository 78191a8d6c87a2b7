import CMicroHTTPD
import Glibc
import HTTP
import Threads

/// The loop thread: one epoll set over every upgraded socket plus the mailbox's eventfd, read and
/// written without blocking (level-triggered), with ping, pong and close timers checked each pass.
/// It owns every `Connection` and is the only caller of the delegate. `run()` blocks until a `.stop`
/// arrives, then closes every connection with 1001 and returns.
final class EventLoop {
    /// How long a closing connection may take to flush its close frame and see the peer hang up.
    static let closeLinger = 2.0
    /// Bytes read from one socket per wake-up; the loop's one scratch buffer.
    static let readSize = 65_536
    static let batch = 256
    /// Bytes of `maxQueuedBytes` kept for a close frame (at most 127) and a ping, which may follow
    /// data that filled the rest: data and pongs may fill only `maxQueuedBytes - controlRoom`.
    static let controlRoom = 256

    private let epoll: Int32
    private let inbox: Inbox<LoopCommand>
    private let figures: LoopFigures
    private let limits: WebSocketLimits
    private let delegate: WebSocketDelegate
    private let sweepEvery: Double
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: EventLoop.readSize, alignment: 16)
    private let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: EventLoop.batch)
    private var connections: [ConnectionID: Connection] = [:]
    private var nextID: ConnectionID = 1
    private var running = true
    /// Bytes queued across every connection, published to the mailbox each pass.
    private var queued = 0
    private var nextSweep = 0.0
    private var now = MonotonicClock.now()

    /// Throws `WebSocketError.loop` when epoll cannot be set up.
    init(inbox: Inbox<LoopCommand>, figures: LoopFigures, limits: WebSocketLimits, delegate: WebSocketDelegate) throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw WebSocketError.loop("epoll_create1: \(String(cString: strerror(errno)))") }
        self.inbox = inbox
        self.figures = figures
        self.limits = limits
        self.delegate = delegate
        sweepEvery = min(1, max(0.01, min(limits.pingInterval, limits.pongTimeout) / 4))
        guard watch(inbox.fd, id: 0, writes: false, adding: true) else {
            Glibc.close(epoll)
            throw WebSocketError.loop("epoll_ctl: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        Glibc.close(epoll)
        scratch.deallocate()
        events.deallocate()
    }

    /// Polls until stopped; blocks the calling thread (the server's loop thread).
    func run() {
        while running {
            let wait = max(0, min(1_000, Int32(((nextSweep - now) * 1_000).rounded(.up))))
            let ready = epoll_wait(epoll, events, Int32(Self.batch), wait)
            now = MonotonicClock.now()
            for index in 0..<max(0, Int(ready)) {
                let event = events[index]
                if event.data.u64 == 0 {
                    handleMail()
                } else if let connection = connections[event.data.u64] {
                    handle(event.events, on: connection)
                }
            }
            if now >= nextSweep {
                sweep()
                nextSweep = now + sweepEvery
            }
            figures.publish(connections: connections.count, queuedBytes: queued)
        }
        shutDown()
    }

    private func handle(_ flags: UInt32, on connection: Connection) {
        if flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { readable(connection) }
        if flags & EPOLLOUT.rawValue != 0, connections[connection.id] != nil { flush(connection) }
    }

    // MARK: Mail

    private func handleMail() {
        for command in inbox.take() {
            switch command {
            case .adopt(let socket): adopt(fd: socket.fd, handle: socket.handle, extra: socket.extra, peer: socket.peer)
            case .send(let id, let bytes): if let connection = connections[id] { enqueue(bytes, on: connection) }
            case .close(let id, let code, let reason): if let connection = connections[id] { fail(connection, code: code, reason: reason) }
            case .stop: running = false
            }
        }
    }

    private func adopt(fd: Int32, handle: OpaquePointer, extra: [UInt8], peer: String) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if limits.sendBuffer > 0 {
            var size = Int32(clamping: limits.sendBuffer)
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let id = nextID
        nextID += 1
        guard watch(fd, id: id, writes: false, adding: true) else {
            pushbus_mhd_upgrade_close(handle)
            return
        }
        let connection = Connection(id: id, fd: fd, handle: handle, maxMessageBytes: limits.maxMessageBytes,
                                    queueRoom: limits.maxQueuedBytes, burst: Double(limits.framesPerSecond * 2), now: now)
        connections[id] = connection
        delegate.opened(id, peer: peer)
        if !extra.isEmpty, connection.isOpen {
            connection.reader.append(extra)
            consume(connection)
        }
    }

    // MARK: Reading

    private func readable(_ connection: Connection) {
        let count = recv(connection.fd, scratch.baseAddress, scratch.count, 0)
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            finish(connection)
            return
        }
        guard count > 0 else {
            finish(connection)
            return
        }
        connection.lastHeard = now
        guard connection.isOpen else { return }
        connection.reader.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        consume(connection)
    }

    /// Acts on every whole frame the connection's reader holds.
    private func consume(_ connection: Connection) {
        while connection.isOpen {
            let event: WebSocketEvent
            do {
                guard let next = try connection.reader.next() else { return }
                event = next
            } catch {
                if case .violation(let code, let reason) = error { fail(connection, code: code, reason: reason) }
                return
            }
            connection.pingSentAt = nil
            let rate = Double(limits.framesPerSecond)
            guard connection.budget.take(now: now, rate: rate, burst: rate * 2) else {
                fail(connection, code: WebSocketCloseCode.policyViolation, reason: "too many frames")
                return
            }
            switch event {
            case .text(let text): delegate.received(text, from: connection.id)
            case .fragment, .pong: break
            case .ping(let payload): enqueue(WebSocketFrame.encode(opcode: .pong, payload: payload), on: connection)
            case .close(let code, let reason):
                let echo = code == WebSocketCloseCode.noStatus
                    ? WebSocketFrame(opcode: .close) : WebSocketFrame.close(code: code, reason: "")
                connection.peerClosed = true
                beginClose(connection, frame: echo.encoded(), code: code, reason: reason)
            }
        }
    }

    // MARK: Writing

    /// Queues `bytes` and writes what the socket takes; a connection whose queue would leave less
    /// than `controlRoom` of `maxQueuedBytes` is a slow reader and is closed instead.
    private func enqueue(_ bytes: [UInt8], on connection: Connection) {
        guard connection.isOpen else { return }
        guard connection.outbound.count + bytes.count <= limits.maxQueuedBytes - Self.controlRoom else {
            let before = connection.outbound.count
            connection.outbound.dropUnstarted()
            queued += connection.outbound.count - before
            fail(connection, code: WebSocketCloseCode.policyViolation, reason: "slow reader")
            return
        }
        write(bytes, on: connection)
    }

    /// Writes `frame` after what is queued: what the socket does not take waits in the queue.
    private func write(_ frame: [UInt8], on connection: Connection) {
        let before = connection.outbound.count
        let outcome = connection.outbound.send(frame, to: connection.fd)
        queued += connection.outbound.count - before
        settle(connection, outcome)
    }

    /// Writes what is queued, as much as the socket takes.
    private func flush(_ connection: Connection) {
        let before = connection.outbound.count
        let outcome = connection.outbound.write(to: connection.fd)
        queued += connection.outbound.count - before
        settle(connection, outcome)
    }

    /// Watches for writability while bytes wait; once drained, ends a closing connection's side.
    private func settle(_ connection: Connection, _ outcome: OutboundQueue.Outcome) {
        switch outcome {
        case .failed:
            finish(connection)
        case .blocked:
            if !connection.watchingWrites, watch(connection.fd, id: connection.id, writes: true, adding: false) {
                connection.watchingWrites = true
            }
        case .drained:
            if connection.watchingWrites, watch(connection.fd, id: connection.id, writes: false, adding: false) {
                connection.watchingWrites = false
            }
            guard !connection.isOpen else { return }
            if connection.peerClosed {
                finish(connection)
            } else if !connection.writeShut {
                connection.writeShut = true
                shutdown(connection.fd, Int32(SHUT_WR))
            }
        }
    }

    // MARK: Closing

    /// Closes with `code` and `reason`: a close frame after what is queued, the delegate told now.
    private func fail(_ connection: Connection, code: UInt16, reason: String) {
        beginClose(connection, frame: WebSocketFrame.close(code: code, reason: reason).encoded(), code: code, reason: reason)
    }

    private func beginClose(_ connection: Connection, frame: [UInt8], code: UInt16, reason: String) {
        guard connection.isOpen else { return }
        connection.state = .closing(deadline: now + Self.closeLinger)
        report(connection, code: code, reason: reason)
        write(frame, on: connection)
    }

    /// Ends the connection now: out of epoll, back to MHD to close; the delegate hears 1006 unless
    /// it already heard otherwise.
    private func finish(_ connection: Connection, reason: String = "") {
        epoll_ctl(epoll, EPOLL_CTL_DEL, connection.fd, nil)
        pushbus_mhd_upgrade_close(connection.handle)
        connections[connection.id] = nil
        queued -= connection.outbound.count
        report(connection, code: WebSocketCloseCode.abnormal, reason: reason)
    }

    private func report(_ connection: Connection, code: UInt16, reason: String) {
        guard !connection.reported else { return }
        connection.reported = true
        delegate.closed(connection.id, code: code, reason: reason)
    }

    // MARK: Timers

    /// Pings silent connections, drops those that left a ping unanswered, ends lingering closes,
    /// and gives back the queue memory of connections that have drained.
    private func sweep() {
        for connection in Array(connections.values) {
            if connection.outbound.isEmpty { connection.outbound.release() }
            switch connection.state {
            case .closing(let deadline):
                if now >= deadline { finish(connection) }
            case .open:
                if let sent = connection.pingSentAt {
                    if now - sent >= limits.pongTimeout { finish(connection, reason: "ping timeout") }
                } else if now - connection.lastHeard >= limits.pingInterval {
                    connection.pingSentAt = now
                    // Behind a full queue the ping would wait anyway; the peer is dropped as dead if
                    // nothing comes back within the pong timeout.
                    if connection.outbound.count <= limits.maxQueuedBytes - Self.controlRoom {
                        write(WebSocketFrame.encode(opcode: .ping, payload: [UInt8]()), on: connection)
                    }
                }
            }
        }
    }

    private func shutDown() {
        for command in inbox.close() {
            if case .adopt(let socket) = command { socket.close() }
        }
        for connection in Array(connections.values) {
            if connection.isOpen {
                report(connection, code: WebSocketCloseCode.goingAway, reason: "going away")
                _ = connection.outbound.send(WebSocketFrame.close(code: WebSocketCloseCode.goingAway, reason: "going away").encoded(),
                                             to: connection.fd)
            }
            finish(connection)
        }
        figures.publish(connections: 0, queuedBytes: 0)
    }

    @discardableResult
    private func watch(_ fd: Int32, id: ConnectionID, writes: Bool, adding: Bool) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (writes ? EPOLLOUT.rawValue : 0)
        event.data.u64 = id
        return epoll_ctl(epoll, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event) == 0
    }
}
