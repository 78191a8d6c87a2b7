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
    /// The host's addresses, when they were looked up, and whether a lookup is under way.
    private var addresses: [SocketAddress] = []
    private var resolvedAt = 0.0
    private var resolving = false
    static let addressLifetime = 60.0

    init(target: Target, loop: EventLoop) {
        self.target = target
        self.loop = loop
    }

    var isIdle: Bool { waiting.isEmpty && connections.isEmpty && !resolving }

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
        // One going away still finishes its streams but takes no new ones: it is not counted.
        var live = 0
        for connection in connections where !connection.isGoingAway && connection.failure == nil {
            if connection.isPending { return }
            live += 1
        }
        guard live < loop.options.maxConnections, loop.now >= nextAttempt else { return }
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

    /// Opens a connection to the next address, after looking the host up when the last answer is
    /// older than `addressLifetime` (off the loop: the answer comes back through `resolved`).
    private func connect() {
        guard !resolving else { return }
        guard !addresses.isEmpty, loop.now - resolvedAt < Self.addressLifetime else {
            if Resolver.isAddress(target.host) { return resolved(Resolver.lookUp(target.host, port: target.port)) }
            resolving = true
            return Resolver.start(target.host, port: target.port, key: target.key, inbox: loop.inbox)
        }
        attempts += 1
        // Each attempt takes the next address, so one dead address does not stop the others being tried.
        let address = addresses[(attempts - 1) % addresses.count]
        let made = address.withSockaddr { pointer, length in
            Result { () throws(HTTP2Error) in try Connection(origin: self, loop: loop, address: pointer, length: length, family: address.family) }
        }
        switch made {
        case .success(let connection):
            connections.append(connection)
            loop.adopt(connection)
        case .failure(let error):
            failed(error.description)
        }
    }

    /// A name lookup's answer: the addresses to connect to, or why there are none.
    func resolved(_ answer: Resolver.Answer) {
        resolving = false
        switch answer {
        case .success(let found):
            addresses = found
            resolvedAt = loop.now
            dispatch()
        case .failure(let failure):
            failed(failure.reason)
        }
    }

    /// The loop closed `connection`: forget it, and space the next attempt out if it never answered.
    func closed(_ connection: Connection, reason: String?) {
        connections.removeAll { $0 === connection }
        if connection.answered {
            backoff = 0
            nextAttempt = loop.now
        } else {
            // Closed before any answer, even politely (a GOAWAY at once): reconnecting at once
            // would look like an attack to APNs.
            if !connection.wasOpened { loop.counters.update { $0.connectionsFailed += 1 } }
            failed(reason ?? "closed before any answer")
        }
    }

    private func failed(_ reason: String) {
        lastError = reason
        let options = loop.options
        backoff = backoff == 0 ? options.reconnectMin : min(options.reconnectMax, backoff * 2)
        nextAttempt = loop.now + backoff * Double.random(in: 0.75...1.25)
    }
}
