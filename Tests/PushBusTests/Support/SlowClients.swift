import Foundation

/// Connections to a local port that start a request and then send one more header line now and
/// then, never finishing it: a slow or hostile client (slowloris). Each comes from a source address
/// of its own group (127.0.0.x), so a per-address limit sees several clients. `trickle()` sends the
/// next line on every connection still open; `openCount()` says how many the server has not closed.
final class SlowClients {
    private(set) var sockets: [Int32] = []

    /// Opens `count` connections, `perAddress` from each of 127.0.0.`firstHost`, the next host, …,
    /// each sending a request line and one header. Waits up to `seconds` for them to connect.
    init(port: Int, count: Int, perAddress: Int, firstHost: Int = 2, within seconds: Double = 15) throws {
        let sources = (0..<count).map { index -> String? in "127.0.0.\(firstHost + index / perAddress)" }
        sockets = try LoopbackSocket.openMany(port: port, sources: sources, within: seconds) { fd in
            _ = send(fd, "POST /v4/push HTTP/1.1\r\nHost: 127.0.0.1\r\n", 41, Int32(MSG_NOSIGNAL))
        }
    }

    deinit { close() }

    /// One more header line on every connection (a failed send means the server closed it).
    func trickle() {
        for fd in sockets { _ = send(fd, "X-Slow: 1\r\n", 11, Int32(MSG_NOSIGNAL)) }
    }

    /// Connections the server has not closed: no end of stream or error pending on them.
    func openCount() -> Int {
        var polled = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        _ = poll(&polled, nfds_t(polled.count), 0)
        var open = 0
        var byte: UInt8 = 0
        for entry in polled {
            if entry.revents == 0 { open += 1; continue }
            // Readable: the server either answered (it never should: the request is not whole) or closed.
            let count = recv(entry.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { open += 1 }
        }
        return open
    }

    func close() {
        for fd in sockets { Foundation.close(fd) }
        sockets = []
    }
}
