import CTLS
import Foundation
import Glibc

/// Everything the loop keeps for one origin (scheme, host, port): the requests waiting for a
/// stream, lane by lane, and the connections that carry them. Hands free streams out round-robin
/// across lanes, and opens another connection only when every stream of the open ones is busy
/// and requests still wait. Loop-owned.
final class Origin {
    let target: Target
    unowned let loop: EventLoop
    private var waiting = FairQueue<Exchange>()
    private(set) var connections: [Connection] = []
    /// Why the last connection attempt failed: what requests that never got a connection end with.
    private var lastError: String?
    /// The current reconnect backoff (0 after a connection that answered) and when the next attempt may start.
    private var backoff = 0.0
    private var nextAttempt = 0.0
    private var attempts = 0

    init(target: Target, loop: EventLoop) {
        self.target = target
        self.loop = loop
    }

    var isIdle: Bool { waiting.isEmpty && connections.isEmpty }

    func enqueue(_ exchange: Exchange) { waiting.append(exchange, lane: exchange.lane) }

    /// Back to the head of its lane, to go on another stream, unless its send deadline has passed.
    func requeue(_ exchange: Exchange) {
        guard loop.now < exchange.sendDeadline else {
            return exchange.end(.notSent("not written within \(loop.options.sendTimeout) s\(lastError.map { ": \($0)" } ?? "")"))
        }
        loop.counters.update { $0.requestsRetried += 1 }
        waiting.prepend(exchange, lane: exchange.lane)
    }

    /// Gives free streams to waiting requests, lanes in turn; opens a connection when all are busy.
    func dispatch() {
        guard !waiting.isEmpty else { return }
        for connection in connections {
            var opened = false
            var free = connection.freeStreams
            while free > 0, let exchange = waiting.popNext() {
                connection.submit(exchange)
                opened = true
                free -= 1
            }
            if opened { connection.flush() }
            if waiting.isEmpty { return }
        }
        let live = connections.filter { !$0.isGoingAway && $0.failure == nil }
        guard live.count < loop.options.maxConnections, !live.contains(where: \.isPending), loop.now >= nextAttempt else { return }
        connect()
    }

    /// Requests whose send deadline passed while they waited end `.notSent`.
    func expire() {
        let now = loop.now
        for exchange in waiting.removeDue({ $0.sendDeadline <= now }) {
            exchange.end(.notSent(lastError.map { "no connection within \(loop.options.sendTimeout) s: \($0)" }
                                  ?? "not written within \(loop.options.sendTimeout) s"))
        }
    }

    /// Every request still waiting ends with `failure` (the client is stopping).
    func abandon(_ failure: HTTP2Failure) {
        for exchange in waiting.removeAll() { exchange.end(failure) }
    }

    private func connect() {
        attempts += 1
        // Blocking, but brief for the handful of origins a sender has; see the report on this.
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(target.host, String(target.port), &hints, &found)
        guard resolved == 0, let found else { return failed("cannot resolve \(target.host): \(String(cString: gai_strerror(resolved)))") }
        defer { freeaddrinfo(found) }
        var addresses: [UnsafeMutablePointer<addrinfo>] = []
        var next: UnsafeMutablePointer<addrinfo>? = found
        while let address = next {
            addresses.append(address)
            next = address.pointee.ai_next
        }
        // Each attempt takes the next address, so one dead address does not stop the others being tried.
        let address = addresses[(attempts - 1) % addresses.count].pointee
        do {
            let connection = try Connection(origin: self, loop: loop, address: address.ai_addr, length: address.ai_addrlen, family: address.ai_family)
            connections.append(connection)
            loop.adopt(connection)
        } catch {
            failed(error.description)
        }
    }

    /// The loop closed `connection`: forget it, and space the next attempt out if it never answered.
    func closed(_ connection: Connection, reason: String?) {
        connections.removeAll { $0 === connection }
        if connection.answered {
            backoff = 0
            nextAttempt = loop.now
        } else if let reason {
            if !connection.wasOpened { loop.counters.update { $0.connectionsFailed += 1 } }
            failed(reason)
        }
    }

    private func failed(_ reason: String) {
        lastError = reason
        let options = loop.options
        backoff = backoff == 0 ? options.reconnectMin : min(options.reconnectMax, backoff * 2)
        nextAttempt = loop.now + backoff * Double.random(in: 0.75...1.25)
    }
}
