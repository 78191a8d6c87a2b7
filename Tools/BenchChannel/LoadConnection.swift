import Credentials
import Foundation

/// One simulated device of the load client: a non-blocking socket that does the WebSocket
/// handshake, says a signed hello, and waits for one message, which it acknowledges. Frames from
/// the server are unmasked; frames to it are masked, as RFC 6455 wants of a client.
final class LoadConnection {
    enum Stage { case connecting, handshaking, welcoming, ready, received, failed }

    let fd: Int32
    let registrationID: String
    private let appKey: String
    private let deviceSecret: String
    private(set) var stage = Stage.connecting
    private(set) var receivedAt: Double?
    private var input: [UInt8] = []

    /// Connects from loopback address `source` (127.0.0.x): tens of thousands of connections from one
    /// address to one port leave the kernel searching a nearly full ephemeral port range at every
    /// connect (it took minutes); spread over addresses, each port number serves several.
    init?(port: UInt16, source: UInt8, appKey: String, registrationID: String, deviceSecret: String) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.appKey = appKey
        self.registrationID = registrationID
        self.deviceSecret = deviceSecret
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_IP), 24 /* IP_BIND_ADDRESS_NO_PORT */, &one, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr("127.0.0.\(source)")
        _ = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 || errno == EINPROGRESS else {
            close(fd)
            return nil
        }
    }

    /// The socket became writable: the connect finished; send the upgrade request.
    func connected() {
        guard stage == .connecting else { return }
        stage = .handshaking
        write(Array(("GET /v1/channel HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
    }

    /// Reads what arrived and moves on: the 101 (then the hello), the welcome, a message (then its ack).
    func readable(now: () -> Double) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count > 0 {
                input.append(contentsOf: buffer[0..<count])
                continue
            }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { stage = stage == .received ? .received : .failed }
            break
        }
        if stage == .handshaking {
            guard let end = Self.headerEnd(input) else { return }
            guard input.starts(with: Array("HTTP/1.1 101".utf8)) else { stage = .failed; return }
            input.removeFirst(end)
            stage = .welcoming
            sayHello()
        }
        while let (opcode, payload) = nextFrame() {
            switch opcode {
            case 0x1 where stage == .welcoming && payload.contains(Array(#""welcome""#.utf8)):
                stage = .ready
            case 0x1 where stage == .ready:
                receivedAt = now()
                stage = .received
                if let msgID = Self.msgID(payload) { write(Self.masked(Array(#"{"type":"ack","msg_id":"\#(msgID)"}"#.utf8))) }
            case 0x9: write(Self.masked(payload, opcode: 0xA))
            case 0x8: stage = stage == .received ? .received : .failed
            default: break
            }
        }
    }

    private func sayHello() {
        let payload = #"{"app_key":"\#(appKey)","registration_id":"\#(registrationID)","ts":\#(Int(Date().timeIntervalSince1970)),"nonce":"\#(RandomKey.hex(bytes: 8))"}"#
        let proof = "v1 device:\(registrationID) " + HMAC.sha256Hex(key: deviceSecret, message: "channel.hello\n" + payload)
        write(Self.masked(Array(payload.utf8)) + Self.masked(Array(proof.utf8)))
    }

    /// Writes all of `bytes` (small frames on an idle socket: the kernel takes them at once).
    private func write(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count <= 0 { if errno == EAGAIN { continue }; stage = .failed; return }
            sent += count
        }
    }

    /// The next complete frame from the server (opcode, payload), if one has arrived.
    private func nextFrame() -> (UInt8, [UInt8])? {
        guard input.count >= 2 else { return nil }
        var length = Int(input[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard input.count >= 4 else { return nil }
            length = Int(input[2]) << 8 | Int(input[3])
            offset = 4
        } else if length == 127 {
            guard input.count >= 10 else { return nil }
            length = input[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard input.count >= offset + length else { return nil }
        let frame = (input[0] & 0x0F, Array(input[offset..<offset + length]))
        input.removeFirst(offset + length)
        return frame
    }

    static func masked(_ payload: [UInt8], opcode: UInt8 = 0x1) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }

    private static func msgID(_ payload: [UInt8]) -> String? {
        guard case let object as [String: Any] = try? JSONSerialization.jsonObject(with: Data(payload)) else { return nil }
        return object["msg_id"] as? String
    }
}
