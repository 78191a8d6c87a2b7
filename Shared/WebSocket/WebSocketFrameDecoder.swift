/// Reads one frame from the front of a byte buffer (RFC 6455 §5.2). Pure: no state, no allocation
/// until a whole frame is there. Every rule a frame's header alone can break is checked here, before
/// its payload is waited for.
public enum WebSocketFrameDecoder {
    /// What the front of the buffer holds.
    public enum Step: Equatable, Sendable {
        /// Not a whole frame yet: at least this many more bytes are needed.
        case needMore(Int)
        /// A whole frame (payload unmasked), and how many bytes it took.
        case frame(WebSocketFrame, consumed: Int)
    }

    /// Decodes the frame at the start of `bytes`. A data frame whose payload is over `maxPayload`
    /// throws 1009 as soon as its length is read; control frames are held to 125 bytes instead.
    /// `requireMask` is the server's rule that every client frame is masked.
    /// Throws `WebSocketError.violation` with 1002 or 1009.
    public static func decode(_ bytes: UnsafeRawBufferPointer, maxPayload: Int,
                              requireMask: Bool = true) throws(WebSocketError) -> Step {
        guard bytes.count >= 2 else { return .needMore(2 - bytes.count) }
        let first = bytes[0], second = bytes[1]
        guard first & 0x70 == 0 else { throw .violation(code: WebSocketCloseCode.protocolError, reason: "reserved bits set") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .violation(code: WebSocketCloseCode.protocolError, reason: "unknown opcode")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        guard masked || !requireMask else { throw .violation(code: WebSocketCloseCode.protocolError, reason: "frame not masked") }
        let short = Int(second & 0x7F)
        if opcode.isControl {
            guard fin else { throw .violation(code: WebSocketCloseCode.protocolError, reason: "fragmented control frame") }
            guard short <= 125 else { throw .violation(code: WebSocketCloseCode.protocolError, reason: "control frame too long") }
        }
        let extra = short == 126 ? 2 : short == 127 ? 8 : 0
        let header = 2 + extra + (masked ? 4 : 0)
        guard bytes.count >= 2 + extra else { return .needMore(header - bytes.count) }
        var length = UInt64(short)
        if extra > 0 {
            length = 0
            for index in 2..<(2 + extra) { length = length << 8 | UInt64(bytes[index]) }
            guard length >> 63 == 0 else { throw .violation(code: WebSocketCloseCode.protocolError, reason: "length out of range") }
        }
        guard opcode.isControl || length <= UInt64(max(0, maxPayload)) else {
            throw .violation(code: WebSocketCloseCode.messageTooBig, reason: "message too big")
        }
        let total = header + Int(length)
        guard bytes.count >= total else { return .needMore(total - bytes.count) }
        var payload = Array(bytes[header..<total])
        if masked {
            let key = (bytes[header - 4], bytes[header - 3], bytes[header - 2], bytes[header - 1])
            unmask(&payload, key: key)
        }
        return .frame(WebSocketFrame(fin: fin, opcode: opcode, payload: payload), consumed: total)
    }

    /// `decode` over an array, for tests and callers that hold one.
    public static func decode(_ bytes: [UInt8], maxPayload: Int, requireMask: Bool = true) throws(WebSocketError) -> Step {
        let step: Result<Step, WebSocketError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(WebSocketError) -> Step in try decode(buffer, maxPayload: maxPayload, requireMask: requireMask) }
        }
        return try step.get()
    }

    /// XORs `payload` with the four-byte masking key, eight bytes at a time where it can.
    static func unmask(_ payload: inout [UInt8], key: (UInt8, UInt8, UInt8, UInt8)) {
        payload.withUnsafeMutableBytes { buffer in
            let count = buffer.count
            guard count > 0, let base = buffer.baseAddress else { return }
            let pattern: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (key.0, key.1, key.2, key.3, key.0, key.1, key.2, key.3)
            let word = withUnsafeBytes(of: pattern) { $0.loadUnaligned(as: UInt64.self) }
            var index = 0
            while index + 8 <= count {
                let value = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                base.storeBytes(of: value ^ word, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            withUnsafeBytes(of: key) { keyBytes in
                while index < count {
                    buffer[index] ^= keyBytes[index & 3]
                    index += 1
                }
            }
        }
    }
}
