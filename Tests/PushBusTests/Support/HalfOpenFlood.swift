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
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw StackError("socket() failed after \(sockets.count) connections: errno \(errno)") }
            sockets.append(fd)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard status == 0 || errno == EINPROGRESS else { throw StackError("connect() failed: errno \(errno)") }
        }
        var waiting = Set(sockets)
        let deadline = Date().addingTimeInterval(seconds)
        while !waiting.isEmpty && Date() < deadline {
            var polled = waiting.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 100) >= 0 else { continue }
            for entry in polled where entry.revents != 0 {
                waiting.remove(entry.fd)
                var failure: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(entry.fd, SOL_SOCKET, SO_ERROR, &failure, &length)
                guard failure == 0, send(entry.fd, "GET /metr", 9, Int32(MSG_NOSIGNAL)) == 9 else { continue }
                connected += 1
            }
        }
    }

    deinit { close() }

    /// Closes every connection; safe to call twice.
    func close() {
        for fd in sockets { Foundation.close(fd) }
        sockets = []
    }
}
