import CTLS
import Foundation
import Glibc
import Threads

/// The client's loop thread: one epoll set over every connection's socket and the inbox's
/// eventfd, level-triggered. Each pass: wait → handle ready sockets and mail → run due timers →
/// hand free streams to waiting requests → close connections that failed or finished. It owns
/// every origin, connection, session and exchange; `run()` blocks until `.stop` arrives.
final class EventLoop {
    static let batch = 64
    /// How often timers are checked: PINGs, stream and send timeouts, connect timeouts.
    let tick: Double
    let options: HTTP2Options
    let counters: CounterBox
    let tls: TLSContext
    let callbacks: OpaquePointer
    private let sessionCallbacks: SessionCallbacks
    let headers = HeaderBlock()
    let readSize = 65_536
    let readBuffer: UnsafeMutablePointer<UInt8>
    private let epoll: Int32
    let inbox: Inbox<LoopCommand>
    private let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: EventLoop.batch)
    private var origins: [String: Origin] = [:]
    /// The origin of the last request taken in: most requests go where the one before went.
    private var lastOrigin: Origin?
    private var connections: [Int32: Connection] = [:]
    private var running = true
    private var nextSweep = 0.0
    private(set) var now = MonotonicClock.now()

    init(inbox: Inbox<LoopCommand>, options: HTTP2Options, counters: CounterBox) throws(HTTP2Error) {
        // A peer that hangs up mid-write must cost a failed write, not the process (SSL_write has no MSG_NOSIGNAL).
        signal(SIGPIPE, SIG_IGN)
        self.inbox = inbox
        self.options = options
        self.counters = counters
        tick = max(0.005, min(0.1, min(options.pingTimeout, options.streamTimeout, options.sendTimeout, options.connectTimeout) / 4))
        tls = try TLSContext(caFile: options.caFile)
        sessionCallbacks = try SessionCallbacks()
        callbacks = sessionCallbacks.pointer
        readBuffer = .allocate(capacity: readSize)
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else {
            readBuffer.deallocate()
            events.deallocate()
            throw .setup("epoll_create1: \(String(cString: strerror(errno)))")
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: inbox.fd))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, inbox.fd, &event) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(epoll)
            readBuffer.deallocate()
            events.deallocate()
            throw .setup("epoll_ctl: \(reason)")
        }
    }

    deinit {
        Glibc.close(epoll)
        readBuffer.deallocate()
        events.deallocate()
    }

    /// Runs until stopped; blocks the calling thread (the client's loop thread).
    func run() {
        while running {
            let busy = !connections.isEmpty || origins.values.contains { !$0.isIdle }
            let wait = busy ? Int32(max(0, ((nextSweep - now) * 1000).rounded(.up))) : -1
            let ready = epoll_wait(epoll, events, Int32(Self.batch), wait)
            now = MonotonicClock.now()
            for index in 0..<max(0, Int(ready)) {
                let fd = events[index].data.fd
                if fd == inbox.fd {
                    takeMail()
                } else if let connection = connections[fd] {
                    connection.handle(events[index].events)
                }
            }
            if now >= nextSweep {
                for connection in connections.values { connection.sweep() }
                for origin in origins.values { origin.expire() }
                nextSweep = now + tick
            }
            reap()
            for origin in origins.values { origin.dispatch() }
            reap()
        }
        shutDown()
    }

    // MARK: Connections

    func adopt(_ connection: Connection) {
        connections[connection.fd] = connection
        watch(connection.fd, writes: true, adding: true)
    }

    func watch(_ fd: Int32, writes: Bool, adding: Bool) {
        var event = epoll_event(events: EPOLLIN.rawValue | (writes ? EPOLLOUT.rawValue : 0), data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epoll, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
    }

    /// Closes the connections that failed or have nothing left to do; their unwritten requests go
    /// back to their origins' queues for the dispatch that follows.
    private func reap() {
        for connection in connections.values where connection.failure != nil || connection.isFinished {
            close(connection, reason: connection.failure)
        }
    }

    private func close(_ connection: Connection, reason: String?) {
        connections[connection.fd] = nil
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, connection.fd, nil)
        connection.close([reason, connection.goawayReason].compactMap { $0 }.joined(separator: " after ").nonEmpty ?? "connection closed")
        connection.origin.closed(connection, reason: reason)
    }

    // MARK: Mail

    private func takeMail() {
        for command in inbox.take() {
            switch command {
            case .send(let submission): take(submission)
            case .resolved(let key, let answer): origins[key]?.resolved(answer)
            case .stop: running = false
            }
        }
    }

    /// Queues a `send` call's requests at their origins; a malformed one ends `.notSent` at once.
    private func take(_ submission: Submission) {
        let batch = Batch(count: submission.requests.count, completion: submission.completion)
        let deadline = now + options.sendTimeout
        for (index, request) in submission.requests.enumerated() {
            guard let (origin, pathStart) = origin(of: request.url) else {
                batch.finish(index, .failed(.notSent("malformed URL \(request.url.prefix(200).debugDescription)")))
                continue
            }
            if let problem = HeaderBlock.problem(request) {
                batch.finish(index, .failed(.notSent(problem)))
                continue
            }
            origin.enqueue(Exchange(batch: batch, index: index, request: request, lane: submission.lane, pathStart: pathStart, sendDeadline: deadline))
        }
    }

    private func origin(of url: String) -> (Origin, Int)? {
        if let origin = lastOrigin, let pathStart = Target.path(of: url, under: origin.target.key) { return (origin, pathStart) }
        guard let target = Target(url) else { return nil }
        let origin = origins[target.key] ?? Origin(target: target, loop: self)
        origins[target.key] = origin
        lastOrigin = origin
        return (origin, target.pathStart)
    }

    // MARK: Stopping

    /// Ends everything: calls posted but not taken, then the connections (written streams `.lost`,
    /// the rest back in their queues), then the queues (`.notSent`).
    private func shutDown() {
        for command in inbox.close() {
            if case .send(let submission) = command {
                submission.completion(submission.requests.map { _ in .failed(.notSent("the client stopped")) })
            }
        }
        for connection in Array(connections.values) { close(connection, reason: "the client stopped") }
        for origin in origins.values { origin.abandon(.notSent("the client stopped")) }
        origins = [:]
        lastOrigin = nil
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
