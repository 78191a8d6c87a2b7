/// One WebSocket frame as a value: what the decoder yields (payload unmasked) and the encoder writes.
public struct WebSocketFrame: Equatable, Sendable {
    public var fin: Bool
    public var opcode: WebSocketOpcode
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// A final text frame carrying `text`.
    public static func text(_ text: String) -> WebSocketFrame {
        WebSocketFrame(opcode: .text, payload: Array(text.utf8))
    }

    /// A close frame with `code` and `reason`, the reason cut to fit the 125-byte control payload
    /// (at a character boundary, so it stays valid UTF-8).
    public static func close(code: UInt16, reason: String) -> WebSocketFrame {
        var cut = Substring(reason)
        while cut.utf8.count > 123 { cut = cut.dropLast() }
        return WebSocketFrame(opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(cut.utf8))
    }

    /// The frame on the wire: unmasked as a server sends it, or masked with `mask` as a client must.
    public func encoded(mask: UInt32? = nil) -> [UInt8] {
        Self.encode(fin: fin, opcode: opcode, payload: payload, mask: mask)
    }

    /// Encodes a frame straight from `payload` (no intermediate frame value), using the shortest of the
    /// 7-, 16- and 64-bit length forms.
    public static func encode(fin: Bool = true, opcode: WebSocketOpcode, payload: some Collection<UInt8>,
                              mask: UInt32? = nil) -> [UInt8] {
        let length = payload.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length + 14)
        bytes.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        if length <= 125 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes.append(UInt8(length >> 8))
            bytes.append(UInt8(length & 0xFF))
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((UInt64(length) >> UInt64(shift)) & 0xFF)) }
        }
        guard let mask else {
            bytes.append(contentsOf: payload)
            return bytes
        }
        let key = [UInt8(mask >> 24), UInt8((mask >> 16) & 0xFF), UInt8((mask >> 8) & 0xFF), UInt8(mask & 0xFF)]
        bytes.append(contentsOf: key)
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ key[index & 3]) }
        return bytes
    }
}
