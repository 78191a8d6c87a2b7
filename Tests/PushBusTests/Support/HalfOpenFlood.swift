import Foundation

/// Many TCP connections to one port on 127.0.0.1, each of which has sent the start of an HTTP
/// request line and then nothing more: what a slow or hostile client leaves a server holding.
/// The connections stay open until `close()` (or release).
final class HalfOpenFlood {
    private(set) var sockets: [Int32] = []
    /// How many of the connections the server's kernel completed (and so took the partial line).
    private(set) var connected = 0

    /// Opens `count` connections without blocking, then waits up to `seconds` for them to complete
    /// and sends each `GET /metr` with no line end. Raise the process's open-file limit first.
    init(port: Int, count: Int, within seconds: Double = 10) throws {
        var connected = 0
        sockets = try LoopbackSocket.openMany(port: port, sources: Array(repeating: nil, count: count), within: seconds) { fd in
            if send(fd, "GET /metr", 9, Int32(MSG_NOSIGNAL)) == 9 { connected += 1 }
        }
        self.connected = connected
    }

    deinit { close() }

    /// Closes every connection; safe to call twice.
    func close() {
        for fd in sockets { Foundation.close(fd) }
        sockets = []
    }
}
