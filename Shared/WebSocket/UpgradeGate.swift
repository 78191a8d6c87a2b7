import CMicroHTTPD
import Glibc

/// What libmicrohttpd's callbacks need, handed to them as their context pointer: the path to
/// upgrade on and the mailbox that carries upgraded sockets to the loop. The server keeps it alive
/// until the daemon has stopped.
final class UpgradeGate: @unchecked Sendable {
    let path: String
    let mailbox: Mailbox

    init(path: String, mailbox: Mailbox) {
        self.path = path
        self.mailbox = mailbox
    }

    /// Answers one request on libmicrohttpd's thread: 101 with the accept key, or a plain 4xx.
    func answer(_ connection: OpaquePointer, method: String, url: String) -> MHD_Result {
        let answer = WebSocketHandshake.answer(method: method, path: url, expectedPath: path) { name in
            MHD_lookup_connection_value(connection, MHD_ValueKind(rawValue: 1)!, name).map { String(cString: $0) }
        }
        switch answer {
        case .upgrade(let accept):
            let context = Unmanaged.passUnretained(self).toOpaque()
            guard let response = MHD_create_response_for_upgrade(upgraded, context) else { return MHD_Result(rawValue: 0)! }
            defer { MHD_destroy_response(response) }
            MHD_add_response_header(response, "Upgrade", "websocket")
            MHD_add_response_header(response, "Sec-WebSocket-Accept", accept)
            return MHD_queue_response(connection, 101, response)
        case .reject(let status, let body, let headers):
            let bytes = Array(body.utf8)
            let response = bytes.withUnsafeBytes { pushbus_mhd_copied_response($0.baseAddress, $0.count) }
            guard let response else { return MHD_Result(rawValue: 0)! }
            defer { MHD_destroy_response(response) }
            MHD_add_response_header(response, "Content-Type", "text/plain")
            for (name, value) in headers { MHD_add_response_header(response, name, value) }
            return MHD_queue_response(connection, status, response)
        }
    }

    /// Hands an upgraded socket to the loop. Once the loop has shut its mailbox (the server is
    /// stopping) the socket is left to MHD_stop_daemon, which closes upgraded sockets still open.
    func adopt(fd: Int32, handle: OpaquePointer, extra: [UInt8]) {
        mailbox.post(.adopt(fd: fd, handle: handle, extra: extra, peer: Self.peer(of: fd)))
    }

    /// "host:port" of the socket's peer, "?" when the kernel cannot say.
    static func peer(of fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard named == 0 else { return "?" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var host = address.pointee.sin_addr
                    inet_ntop(AF_INET, &host, &text, socklen_t(text.count))
                    return "\(Self.string(text)):\(UInt16(bigEndian: address.pointee.sin_port))"
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var host = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &host, &text, socklen_t(text.count))
                    return "[\(Self.string(text))]:\(UInt16(bigEndian: address.pointee.sin6_port))"
                }
            }
        default:
            return "?"
        }
    }

    private static func string(_ characters: [CChar]) -> String {
        characters.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// libmicrohttpd's request callback: every request is answered on its first call.
let upgradeRequest: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, _, _ in
    guard let context, let connection, let url, let method else { return MHD_Result(rawValue: 0)! }
    let gate = Unmanaged<UpgradeGate>.fromOpaque(context).takeUnretainedValue()
    return gate.answer(connection, method: String(cString: method), url: String(cString: url))
}

/// libmicrohttpd's upgrade callback, on its thread, after the 101 went out.
private let upgraded: MHD_UpgradeHandler = { context, _, _, extraIn, extraSize, socket, handle in
    guard let context, let handle else { return }
    let gate = Unmanaged<UpgradeGate>.fromOpaque(context).takeUnretainedValue()
    let extra = extraSize > 0 && extraIn != nil ? Array(UnsafeRawBufferPointer(start: extraIn, count: extraSize)) : []
    gate.adopt(fd: socket, handle: handle, extra: extra)
}
