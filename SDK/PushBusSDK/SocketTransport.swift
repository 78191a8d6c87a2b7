#if os(Linux)
import Foundation

/// The device edge over HTTP/1.1 on one kept connection (`TLSSocket`, TLS for `https`), blocking,
/// with a timeout on every read and write. Used by one thread at a time (the SDK's queue).
public final class SocketTransport: DeviceTransport {
    private let host: String
    private let port: Int
    private let context: TLSSocket.Context?
    private let timeout: Double
    private var socket: TLSSocket?
    private var input: [UInt8] = []

    /// `server` is `https://host[:port]` or `http://…`; `caFile` replaces the system's trust store.
    public init(server: URL, caFile: String?, timeout: Double = 15) throws {
        guard let host = server.host, let scheme = server.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw TransportError("the server must be an https:// or http:// URL, not \(server)")
        }
        self.host = host
        port = server.port ?? (scheme == "https" ? 443 : 80)
        context = scheme == "https" ? try TLSSocket.Context.shared(caFile: caFile) : nil
        self.timeout = timeout
    }

    public func post(command: String, payload: Data, proof: String?) throws -> (status: Int, body: Data) {
        var head = "POST /v1/device/\(command) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(payload.count)\r\n"
        if let proof { head += "X-PushBus-Proof: \(proof)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + payload
        // A kept connection the server closed meanwhile fails at once: one more try on a new one.
        for attempt in 0..<2 {
            do {
                let socket = try self.socket ?? TLSSocket(host: host, port: port, context: context, timeout: timeout)
                self.socket = socket
                try socket.write(request)
                return try readResponse(socket)
            } catch let error as TransportError {
                close()
                if attempt == 1 { throw error }
            }
        }
        throw TransportError("unreachable")
    }

    public func close() {
        socket?.close()
        socket = nil
        input = []
    }

    /// Reads one whole answer: its status and body (Content-Length; `Connection: close` closes after it).
    private func readResponse(_ socket: TLSSocket) throws -> (status: Int, body: Data) {
        let head = try HTTPHead.read(from: socket, into: &input, host: host, deadline: Date().addingTimeInterval(timeout))
        let length = head.headers["content-length"].flatMap { Int($0) } ?? 0
        while input.count < length {
            guard let bytes = try socket.read() else { throw TransportError("no answer from \(host) within \(timeout) s") }
            input += bytes
        }
        let body = Data(input[0..<length])
        input.removeFirst(length)
        if head.headers["connection"]?.lowercased() == "close" { close() }
        return (head.status, body)
    }
}
#endif
