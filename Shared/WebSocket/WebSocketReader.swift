/// The inbound half of one connection: bytes from the socket go in, events come out, one per frame.
/// It keeps the bytes of an unfinished frame and the fragments of an unfinished message, never more
/// than `maxMessageBytes` of payload (a longer one is refused from its length header), and holds no
/// memory at all between messages. Pure: no socket, no clock. Not thread-safe; its connection's
/// loop owns it. After `next()` throws, the reader is spent.
public struct WebSocketReader {
    public let maxMessageBytes: Int
    private var input: [UInt8] = []
    private var start = 0
    private var message: [UInt8] = []
    private var inMessage = false

    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Bytes held: an unfinished frame plus an unfinished message's fragments.
    public var buffered: Int { input.count - start + message.count }

    /// Bytes its buffers take, room to grow included.
    var reserved: Int { input.capacity + message.capacity }

    /// Takes bytes read from the socket.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        input.append(contentsOf: bytes)
    }

    /// Takes bytes read from the socket.
    public mutating func append(_ bytes: [UInt8]) {
        input.append(contentsOf: bytes)
    }

    /// The next frame's event, or nil when the bytes held are not a whole frame. Throws
    /// `WebSocketError.violation`: 1002 for a protocol error (unmasked, reserved bits, unknown opcode,
    /// bad control frame, continuation without a start, a bad close frame), 1003 for a binary
    /// message, 1007 for text that is not UTF-8, 1009 for a message over `maxMessageBytes`.
    public mutating func next() throws(WebSocketError) -> WebSocketEvent? {
        let room = maxMessageBytes - message.count
        let step: Result<WebSocketFrameDecoder.Step, WebSocketError> = input.withUnsafeBytes { buffer in
            Result { () throws(WebSocketError) -> WebSocketFrameDecoder.Step in
                try WebSocketFrameDecoder.decode(UnsafeRawBufferPointer(rebasing: buffer[start...]), maxPayload: room)
            }
        }
        switch try step.get() {
        case .needMore:
            if start > 0 {
                // A new array of just the unfinished frame: removing the frames before it in place
                // would keep all of a read's room (64 KiB) for as long as the frame stays unfinished.
                input = Array(input[start...])
                start = 0
            }
            return nil
        case .frame(let frame, let consumed):
            start += consumed
            if start == input.count {
                input = []
                start = 0
            }
            return try event(for: frame)
        }
    }

    private mutating func event(for frame: WebSocketFrame) throws(WebSocketError) -> WebSocketEvent {
        switch frame.opcode {
        case .text:
            guard !inMessage else {
                throw .violation(code: WebSocketCloseCode.protocolError, reason: "new message inside a fragmented one")
            }
            if frame.fin { return .text(try Self.text(frame.payload)) }
            inMessage = true
            message = frame.payload
            return .fragment
        case .continuation:
            guard inMessage else { throw .violation(code: WebSocketCloseCode.protocolError, reason: "continuation without a start") }
            message.append(contentsOf: frame.payload)
            guard frame.fin else { return .fragment }
            let whole = message
            message = []
            inMessage = false
            return .text(try Self.text(whole))
        case .binary:
            throw .violation(code: WebSocketCloseCode.unsupportedData, reason: "binary frames are not accepted")
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            return try Self.close(frame.payload)
        }
    }

    private static func text(_ bytes: [UInt8]) throws(WebSocketError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .violation(code: WebSocketCloseCode.invalidData, reason: "text is not UTF-8")
        }
        return text
    }

    private static func close(_ payload: [UInt8]) throws(WebSocketError) -> WebSocketEvent {
        if payload.isEmpty { return .close(code: WebSocketCloseCode.noStatus, reason: "") }
        guard payload.count >= 2 else { throw .violation(code: WebSocketCloseCode.protocolError, reason: "close frame too short") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocketCloseCode.isSendable(code) else {
            throw .violation(code: WebSocketCloseCode.protocolError, reason: "invalid close code")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw .violation(code: WebSocketCloseCode.invalidData, reason: "close reason is not UTF-8")
        }
        return .close(code: code, reason: reason)
    }
}
