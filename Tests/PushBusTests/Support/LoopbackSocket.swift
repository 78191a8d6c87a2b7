import Foundation

/// A blocking TCP socket connected to 127.0.0.1, for test clients that speak a protocol by hand.
enum LoopbackSocket {
    /// Connects to `port`; with `timeout`, sends and each read give up after that many seconds;
    /// `receiveBuffer` shrinks the receive buffer (a slow reader). The caller closes the descriptor.
    static func connect(port: Int, timeout: Double? = nil, receiveBuffer: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StackError("socket failed") }
        if let timeout {
            var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw StackError("cannot connect to port \(port)")
        }
        return fd
    }

    /// Opens one non-blocking connection to 127.0.0.1:`port` for each of `sources` (a local address
    /// to bind, 127.0.0.x, or nil for any), then waits up to `seconds` for them to complete, calling
    /// `connected` with each that did. Returns every socket opened, complete or not (the caller
    /// closes them). Raise the process's open-file limit first for many.
    static func openMany(port: Int, sources: [String?], within seconds: Double, connected: (Int32) -> Void) throws -> [Int32] {
        var sockets: [Int32] = []
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        for source in sources {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else {
                sockets.forEach { Glibc.close($0) }
                throw StackError("socket() failed after \(sockets.count) connections: errno \(errno)")
            }
            sockets.append(fd)
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                local.sin_addr.s_addr = inet_addr(source)
                _ = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard status == 0 || errno == EINPROGRESS else {
                sockets.forEach { Glibc.close($0) }
                throw StackError("connect() failed: errno \(errno)")
            }
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
                if failure == 0 { connected(entry.fd) }
            }
        }
        return sockets
    }
}
