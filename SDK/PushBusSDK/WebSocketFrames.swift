import Foundation
#if canImport(CryptoKit)
import CryptoKit
#else
import CCrypto
#endif

/// RFC 6455 as a client speaks it: the handshake's key and the accept it expects, masked frames
/// out, unmasked frames in (fragments joined), control frames at any time.
enum WebSocketFrames {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A fresh `Sec-WebSocket-Key`: 16 random bytes, base64.
    static func key() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` the server must answer `key` with: base64(SHA-1(key + GUID)).
    static func accept(for key: String) -> String {
        let input = Data((key + guid).utf8)
        #if canImport(CryptoKit)
        return Data(Insecure.SHA1.hash(data: input)).base64EncodedString()
        #else
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        input.withUnsafeBytes { bytes in _ = EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha1(), nil) }
        return Data(digest.prefix(Int(length))).base64EncodedString()
        #endif
    }

    enum Opcode: UInt8 {
        case continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10
    }

    /// One masked frame from the client (RFC 6455 §5.3: a client masks every frame).
    static func frame(_ opcode: Opcode, _ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode.rawValue]
        let count = payload.count
        if count < 126 {
            frame.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame += [UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((UInt64(count) >> (8 * UInt64($0))) & 0xFF) }
        }
        var generator = SystemRandomNumberGenerator()
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// A close frame with `code`.
    static func close(_ code: UInt16) -> [UInt8] { frame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)]) }

    /// The first whole frame in `input` (its FIN bit, opcode and payload) and the bytes it took;
    /// nil while incomplete. Throws on a masked server frame or one over `limit` bytes.
    static func parse(_ input: [UInt8], limit: Int) throws -> (fin: Bool, opcode: UInt8, payload: [UInt8], used: Int)? {
        guard input.count >= 2 else { return nil }
        let fin = input[0] & 0x80 != 0
        let opcode = input[0] & 0x0F
        guard input[1] & 0x80 == 0 else { throw TransportError("the server masked a frame") }
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
        guard length <= limit else { throw TransportError("a frame of \(length) bytes is over the \(limit)-byte limit") }
        guard input.count >= offset + length else { return nil }
        return (fin, opcode, Array(input[offset..<(offset + length)]), offset + length)
    }
}
