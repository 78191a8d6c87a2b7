import Foundation

/// One WebSocket connection of the device channel, as `LiveChannel` uses it from its own thread:
/// blocking, one frame at a time. `SocketChannelConnection` on Linux (the SDK's RFC 6455 codec over
/// its own socket, TLS by OpenSSL); `URLSessionChannelConnection` (URLSessionWebSocketTask) on Apple platforms.
protocol ChannelConnection: AnyObject {
    /// A text frame, or nil when nothing came within the connection's read timeout. Throws
    /// `ChannelClosed` when the server closed (with its code) or the connection failed (code 1006).
    func receive() throws -> String?
    func send(_ text: String) throws
    /// Sends a close frame with `code` (when the connection still lives) and ends it. Only from
    /// the thread that receives.
    func close(_ code: UInt16)
    /// From any thread: makes a `receive` blocked on the connection fail at once.
    func interrupt()
}

/// The connection ended: the server's close code (1006 when it just dropped), and its reason.
struct ChannelClosed: Error {
    let code: UInt16
    let reason: String
}

#if os(Linux)
/// The channel over `TLSSocket` (wss://) or a plain socket (ws://): the HTTP upgrade, then frames.
/// Pings are answered as they come; a frame over `limit` bytes ends the connection.
final class SocketChannelConnection: ChannelConnection {
    private let socket: TLSSocket
    private var input: [UInt8] = []
    private var fragments: [UInt8] = []
    private let limit = 1 << 20

    init(url: URL, context: TLSSocket.Context?, readTimeout: Double) throws {
        guard let host = url.host, let scheme = url.scheme?.lowercased(), scheme == "wss" || scheme == "ws" else {
            throw TransportError("the channel must be a wss:// or ws:// URL, not \(url)")
        }
        let port = url.port ?? (scheme == "wss" ? 443 : 80)
        socket = try TLSSocket(host: host, port: port, context: scheme == "wss" ? context : nil, timeout: readTimeout)
        let key = WebSocketFrames.key()
        let path = url.path.isEmpty ? "/" : url.path
        let request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try socket.write(Array(request.utf8))
        let head = try HTTPHead.read(from: socket, into: &input, host: host, deadline: Date().addingTimeInterval(10))
        guard head.status == 101 else { throw TransportError("the channel refused the upgrade: \(head.statusLine)") }
        let accept = head.headers["sec-websocket-accept"]
        guard accept == WebSocketFrames.accept(for: key) else { throw TransportError("the channel's Sec-WebSocket-Accept does not match") }
    }

    func receive() throws -> String? {
        while true {
            if let frame = try WebSocketFrames.parse(input, limit: limit) {
                input.removeFirst(frame.used)
                switch frame.opcode {
                case WebSocketFrames.Opcode.ping.rawValue:
                    try? socket.write(WebSocketFrames.frame(.pong, frame.payload))
                case WebSocketFrames.Opcode.pong.rawValue:
                    break
                case WebSocketFrames.Opcode.close.rawValue:
                    let code = frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : 1005
                    let reason = String(decoding: frame.payload.dropFirst(2), as: UTF8.self)
                    try? socket.write(WebSocketFrames.close(code))
                    socket.close()
                    throw ChannelClosed(code: code, reason: reason)
                case WebSocketFrames.Opcode.text.rawValue, WebSocketFrames.Opcode.continuation.rawValue:
                    fragments += frame.payload
                    guard fragments.count <= limit else { throw ChannelClosed(code: 1009, reason: "message too big") }
                    if frame.fin {
                        defer { fragments = [] }
                        return String(decoding: fragments, as: UTF8.self)
                    }
                default:
                    throw ChannelClosed(code: 1003, reason: "a binary frame")
                }
                continue
            }
            do {
                guard let bytes = try socket.read() else { return nil }
                input += bytes
            } catch {
                throw ChannelClosed(code: 1006, reason: "\(error)")
            }
        }
    }

    func send(_ text: String) throws {
        do { try socket.write(WebSocketFrames.frame(.text, Array(text.utf8))) } catch {
            throw ChannelClosed(code: 1006, reason: "\(error)")
        }
    }

    func close(_ code: UInt16) {
        try? socket.write(WebSocketFrames.close(code))
        socket.close()
    }

    func interrupt() { socket.interrupt() }
}
#endif
