import CZeroMQ
import Foundation

/// A ZeroMQ socket. Not Sendable: it is created, used and closed by one thread.
/// Linger is 0 from the start so closing never waits on unsent messages.
public final class Socket {
    let handle: UnsafeMutableRawPointer
    public let type: SocketType
    private var closed = false

    public init(_ context: Context, _ type: SocketType) throws(ZMQError) {
        guard let handle = zmq_socket(context.handle, type.raw) else { throw .last("zmq_socket") }
        self.handle = handle
        self.type = type
        try setOption(ZMQ_LINGER, Int32(0))
    }

    deinit { close() }

    /// Closes the socket. Safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        zmq_close(handle)
    }

    public func bind(_ endpoint: String) throws(ZMQError) {
        guard zmq_bind(handle, endpoint) == 0 else { throw .last("bind \(endpoint)") }
    }

    public func connect(_ endpoint: String) throws(ZMQError) {
        guard zmq_connect(handle, endpoint) == 0 else { throw .last("connect \(endpoint)") }
    }

    public func disconnect(_ endpoint: String) throws(ZMQError) {
        guard zmq_disconnect(handle, endpoint) == 0 else { throw .last("disconnect \(endpoint)") }
    }

    /// The endpoint actually bound, e.g. after binding `tcp://127.0.0.1:*`.
    public var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        _ = zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: options

    public func setOption(_ option: Int32, _ value: Int32) throws(ZMQError) {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) == 0 else {
            throw .last("setsockopt \(option)")
        }
    }

    public func setOption(_ option: Int32, _ value: Int64) throws(ZMQError) {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size) == 0 else {
            throw .last("setsockopt \(option)")
        }
    }

    public func setOption(_ option: Int32, _ bytes: Data) throws(ZMQError) {
        let status = bytes.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, bytes.count) }
        guard status == 0 else { throw .last("setsockopt \(option)") }
    }

    /// Subscribes a SUB socket to topics starting with `prefix` ("" = all).
    public func subscribe(_ prefix: String) throws(ZMQError) { try setOption(ZMQ_SUBSCRIBE, Data(prefix.utf8)) }

    public func setIdentity(_ identity: Data) throws(ZMQError) { try setOption(ZMQ_ROUTING_ID, identity) }

    public func setHighWaterMarks(send: Int32, receive: Int32) throws(ZMQError) {
        try setOption(ZMQ_SNDHWM, send)
        try setOption(ZMQ_RCVHWM, receive)
    }

    /// Refuses single frames larger than `bytes` (the peer is disconnected), enforced by libzmq.
    public func setMaxMessageSize(_ bytes: Int64) throws(ZMQError) { try setOption(ZMQ_MAXMSGSIZE, bytes) }

    // MARK: sending and receiving

    /// Sends every frame of `message`. With `wait: false` throws `EAGAIN` when it would block.
    public func send(_ message: Message, wait: Bool = true) throws(ZMQError) {
        try send(frames: message.frames, wait: wait)
    }

    /// Sends `frames` as one multipart message: for a caller that keeps one list of frames and
    /// refills it for each message, so sending makes no list of its own.
    public func send(frames: [Data], wait: Bool = true) throws(ZMQError) {
        precondition(!frames.isEmpty, "a ZeroMQ message has at least one frame")
        let last = frames.count - 1
        for (index, frame) in frames.enumerated() {
            var flags: Int32 = index < last ? ZMQ_SNDMORE : 0
            if !wait { flags |= ZMQ_DONTWAIT }
            let sent = frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, frame.count, flags) }
            if sent < 0 { throw .last("send") }
        }
    }

    /// Sends the frames `write` appends to `buffer`, a list the caller keeps between messages for
    /// its room (emptied after each): a loop that sends through it allocates no list of frames.
    public func send(reusing buffer: inout [Data], wait: Bool = true, _ write: (inout [Data]) -> Void) throws(ZMQError) {
        defer { buffer.removeAll(keepingCapacity: true) }
        write(&buffer)
        try send(frames: buffer, wait: wait)
    }

    public func send(strings: [String], wait: Bool = true) throws(ZMQError) {
        try send(Message(strings: strings), wait: wait)
    }

    /// Receives one whole multipart message. With `wait: false` returns nil when none is queued.
    public func receive(wait: Bool = true) throws(ZMQError) -> Message? {
        var part = zmq_msg_t()
        zmq_msg_init(&part)
        defer { zmq_msg_close(&part) }
        return try receiveFrames(wait: wait, into: &part).map(Message.init)
    }

    /// Receives one whole multipart message and, when `wanted` says so of its frames, the sender's
    /// address: libzmq's `Peer-Address` property, the IP of a TCP peer (nil for other transports).
    /// Reading it costs a lookup and a string, so a busy loop asks only for the messages it needs
    /// it for. With `wait: false` returns nil when none is queued.
    public func receive(wait: Bool = true, peerAddressIf wanted: ([Data]) -> Bool) throws(ZMQError) -> (message: Message, peerAddress: String?)? {
        var part = zmq_msg_t()
        zmq_msg_init(&part)
        defer { zmq_msg_close(&part) }
        guard let frames = try receiveFrames(wait: wait, into: &part) else { return nil }
        // Every frame carries its connection's properties, and `part` still holds the last one.
        let peerAddress = wanted(frames) ? zmq_msg_gets(&part, "Peer-Address").map { String(cString: $0) } : nil
        return (Message(frames), peerAddress)
    }

    /// The frames of one message; `part` is left holding the last one.
    private func receiveFrames(wait: Bool, into part: inout zmq_msg_t) throws(ZMQError) -> [Data]? {
        var frames: [Data] = []
        repeat {
            let flags: Int32 = (!wait && frames.isEmpty) ? ZMQ_DONTWAIT : 0
            if zmq_msg_recv(&part, handle, flags) < 0 {
                let error = ZMQError.last("receive")
                if error.isWouldBlock && frames.isEmpty { return nil }
                throw error
            }
            // An MDP request through the gateway has up to 8 frames: one allocation, not four.
            if frames.isEmpty && zmq_msg_more(&part) == 1 { frames.reserveCapacity(8) }
            let size = zmq_msg_size(&part)
            if size == 0 {
                frames.append(Data())
            } else {
                frames.append(Data(bytes: zmq_msg_data(&part), count: size))
            }
        } while zmq_msg_more(&part) == 1
        return frames
    }
}

/// Forwards messages both ways between `frontend` and `backend` in libzmq's own loop
/// (`zmq_proxy`); returns when the context is shut down. Both sockets belong to the calling thread.
public func proxy(frontend: Socket, backend: Socket) {
    zmq_proxy(frontend.handle, backend.handle, nil)
}
