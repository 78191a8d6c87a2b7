import Foundation

/// A blocking WebSocket client on a plain socket, written apart from the server's codec so the two
/// cannot agree on a mistake: a hand-made handshake, masked frames out, frames parsed in. Every read
/// gives up after `timeout` seconds (and throws) instead of hanging a test.
final class WebSocketTestClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A frame from the server.
    struct Frame: Equatable {
        let fin: Bool
        let opcode: UInt8
        let payload: [UInt8]
        var text: String { String(decoding: payload, as: UTF8.self) }
        /// The close code and reason of a close frame (1005 when it has none).
        var close: (code: UInt16, reason: String) {
            payload.count < 2 ? (1005, "") : (UInt16(payload[0]) << 8 | UInt16(payload[1]), String(decoding: payload[2...], as: UTF8.self))
        }
    }

    /// The status and headers (names lowercased) of the server's answer to the handshake.
    struct Head {
        let status: Int
        let headers: [String: String]
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`. `receiveBuffer` shrinks the socket's receive buffer (a slow reader).
    init(port: Int, timeout: Double = 5, receiveBuffer: Int? = nil) throws {
        do { fd = try LoopbackSocket.connect(port: port, timeout: timeout, receiveBuffer: receiveBuffer) } catch {
            throw Failure("cannot connect to port \(port)")
        }
    }

    deinit { close(fd) }

    /// Sends an upgrade request for `path` (or `request` verbatim), with `trailing` bytes in the same
    /// write, and reads the answer's head; bytes after it stay buffered for `readFrame()`.
    @discardableResult
    func handshake(path: String = "/ws", key: String = "dGhlIHNhbXBsZSBub25jZQ==", version: String = "13",
                   request: String? = nil, trailing: [UInt8] = []) throws -> Head {
        let text = request ?? "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: \(version)\r\n\r\n"
        try sendRaw(Array(text.utf8) + trailing)
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure("bad status line: \(head)") }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return Head(status: status, headers: headers)
            }
            guard try fill() else { throw Failure("closed during the handshake") }
        }
    }

    func sendRaw(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure("send failed: errno \(errno)") }
            sent += count
        }
    }

    /// One frame as a client writes it: masked with a random key unless `masked` is false.
    static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true, masked: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
        let bit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: bytes.append(bit | UInt8(payload.count))
        case ..<65_536: bytes += [bit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [bit | 127] + (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (UInt64($0) * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let key = (0..<4).map { _ in UInt8.random(in: 0...255) }
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true, masked: Bool = true) throws {
        try sendRaw(Self.frame(opcode: opcode, payload: payload, fin: fin, masked: masked))
    }

    func sendText(_ text: String) throws { try sendFrame(opcode: 0x1, payload: Array(text.utf8)) }

    func sendClose(code: UInt16, reason: String = "") throws {
        try sendFrame(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    /// The next frame, or nil when the server closed the connection. Throws on a timeout.
    func readFrame() throws -> Frame? {
        while true {
            if buffer.count >= 2 {
                let short = Int(buffer[1] & 0x7F)
                let extra = short == 126 ? 2 : short == 127 ? 8 : 0
                if buffer.count >= 2 + extra {
                    var length = short
                    if extra > 0 { length = buffer[2..<(2 + extra)].reduce(0) { $0 << 8 | Int($1) } }
                    if buffer[1] & 0x80 != 0 { throw Failure("server frame is masked") }
                    if buffer.count >= 2 + extra + length {
                        let frame = Frame(fin: buffer[0] & 0x80 != 0, opcode: buffer[0] & 0x0F,
                                          payload: Array(buffer[(2 + extra)..<(2 + extra + length)]))
                        buffer.removeFirst(2 + extra + length)
                        return frame
                    }
                }
            }
            guard try fill() else { return nil }
        }
    }

    /// The next text message, skipping pings and pongs; throws on anything else.
    func readText() throws -> String {
        while let frame = try readFrame() {
            switch frame.opcode {
            case 0x1: return frame.text
            case 0x9, 0xA: continue
            default: throw Failure("expected text, got opcode \(frame.opcode) \(frame.payload.prefix(40))")
            }
        }
        throw Failure("closed while waiting for text")
    }

    /// Reads past data frames to the server's close frame; nil if the connection ended without one.
    func readClose() throws -> (code: UInt16, reason: String)? {
        while let frame = try readFrame() {
            if frame.opcode == 0x8 { return frame.close }
        }
        return nil
    }

    /// Whether the server has closed the socket: reads until end of stream, throws on a timeout.
    func readToEnd() throws -> Bool {
        while try fill() { buffer.removeAll() }
        return true
    }

    /// Ends the connection from this side (FIN both ways) without a close frame.
    func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw Failure("recv failed: errno \(errno)")
        }
        buffer += chunk[0..<count]
        return count > 0
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        return (0...(buffer.count - pattern.count)).first { buffer[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
