import Foundation
import Glibc
import Majordomo
import Schema
import ZeroMQ

/// Where a replay sends its calls: the gateway over MDP, or the device edge over HTTP/1.1. Owned by
/// the replayer's thread, which polls `sockets` and `fds` and hands what is ready to `replies`.
protocol ReplayTransport: AnyObject {
    var sockets: [Socket] { get }
    var fds: [Int32] { get }
    /// Sends call `index` (its `body`: `[command, payload, proof?]`) on `connection`.
    func send(index: Int, service: Data, body: [Data], connection: Int) throws
    /// Every reply that has come: its call's index and the reply's JSON.
    func replies(_ ready: Poller.Ready, _ take: (Int, Data) -> Void) throws
    func close()
}

/// The gateway over MDP: DEALER connections; a reply finds its call by the `seq` it echoes.
final class MajordomoTransport: ReplayTransport {
    let sockets: [Socket]
    var fds: [Int32] { [] }

    init(endpoint: String, serverKey: String?, connections: Int, context: Context) throws {
        sockets = try (0..<connections).map { _ -> Socket in
            let socket = try Socket(context, .dealer)
            try socket.setHighWaterMarks(send: 0, receive: 0)
            if let serverKey { try socket.makeCurveClient(serverKey: serverKey) }
            try socket.connect(endpoint)
            return socket
        }
    }

    func send(index: Int, service: Data, body: [Data], connection: Int) throws {
        try sockets[connection].send(Message([Data(), MDP.client, service] + body))
    }

    func replies(_ ready: Poller.Ready, _ take: (Int, Data) -> Void) throws {
        for socket in ready {
            while let message = try socket.receive(wait: false) {
                guard message.count >= 4, let index = ReplySniffer.seq(message[3]) else { continue }
                take(index, message[3])
            }
        }
    }

    func close() { sockets.forEach { $0.close() } }
}

/// The device edge (`POST /v1/device/<command>` on api) over HTTP/1.1 keep-alive connections, as
/// many phones would: each connection carries one request at a time, the next of its calls waiting
/// for the answer. Whatever the answer's status, its body (the bus reply, or the edge's refusal
/// with its code) is the call's reply.
final class EdgeTransport: ReplayTransport {
    private struct Connection {
        let fd: Int32
        var waiting: [(index: Int, request: [UInt8])] = []
        var head = 0
        var current: Int?
        var input: [UInt8] = []
    }

    private var connections: [Connection]
    var sockets: [Socket] { [] }
    var fds: [Int32] { connections.map(\.fd) }
    private let host: String

    /// `address` is `host:port` (IPv4).
    init(address: String, connections count: Int) throws {
        let parts = address.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw EdgeError("--edge is host:port, not \(address)") }
        host = address
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = port.bigEndian
        guard inet_pton(AF_INET, String(parts[0]), &target.sin_addr) == 1 else { throw EdgeError("--edge: \(parts[0]) is not an IPv4 address") }
        connections = try (0..<count).map { _ in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw EdgeError("socket: \(String(cString: strerror(errno)))") }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                let reason = String(cString: strerror(errno))
                Glibc.close(fd)
                throw EdgeError("cannot connect to \(address): \(reason)")
            }
            return Connection(fd: fd)
        }
    }

    func send(index: Int, service: Data, body: [Data], connection: Int) throws {
        guard body.count >= 2 else { throw EdgeError("call \(index) has no payload") }
        var head = "POST /v1/device/\(String(decoding: body[0], as: UTF8.self)) HTTP/1.1\r\nHost: \(host)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body[1].count)\r\n"
        if body.count >= 3 { head += "X-PushBus-Proof: \(String(decoding: body[2], as: UTF8.self))\r\n" }
        head += "\r\n"
        connections[connection].waiting.append((index, Array(head.utf8) + body[1]))
        try next(connection)
    }

    /// Writes the connection's next request when it carries none.
    private func next(_ connection: Int) throws {
        var state = connections[connection]
        guard state.current == nil, state.head < state.waiting.count else { return }
        let (index, request) = state.waiting[state.head]
        state.head += 1
        if state.head >= 1024 {
            state.waiting.removeFirst(state.head)
            state.head = 0
        }
        state.current = index
        connections[connection] = state
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { Glibc.send(state.fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw EdgeError("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    func replies(_ ready: Poller.Ready, _ take: (Int, Data) -> Void) throws {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        for connection in connections.indices where ready.contains(fd: connections[connection].fd) {
            let count = buffer.withUnsafeMutableBytes { recv(connections[connection].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 { throw EdgeError("the edge closed a connection") }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                throw EdgeError("recv: \(String(cString: strerror(errno)))")
            }
            connections[connection].input += buffer[0..<count]
            while let (body, used) = try Self.response(connections[connection].input) {
                connections[connection].input.removeFirst(used)
                guard let index = connections[connection].current else { throw EdgeError("an answer to no request") }
                connections[connection].current = nil
                take(index, Data(body))
                try next(connection)
            }
        }
    }

    /// The body of the first whole response in `input` and the bytes it took, nil while incomplete.
    static func response(_ input: [UInt8]) throws -> (body: ArraySlice<UInt8>, used: Int)? {
        let end: [UInt8] = [13, 10, 13, 10]
        guard input.count >= 4, let headEnd = (0...(input.count - 4)).first(where: { input[$0..<($0 + 4)].elementsEqual(end) }) else { return nil }
        let head = String(decoding: input[0..<headEnd], as: UTF8.self)
        guard let line = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
              let length = Int(line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)) else {
            throw EdgeError("an answer without Content-Length: \(head.prefix(200))")
        }
        let start = headEnd + 4
        guard input.count >= start + length else { return nil }
        return (input[start..<(start + length)], start + length)
    }

    func close() { connections.forEach { Glibc.close($0.fd) } }
}

struct EdgeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
