import CZeroMQ

/// Waits for input on a fixed set of sockets, owned by the same thread as the sockets.
public struct Poller {
    private var items: [zmq_pollitem_t]

    public init(_ sockets: [Socket]) {
        items = sockets.map { zmq_pollitem_t(socket: $0.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0) }
    }

    /// Blocks up to `timeout` milliseconds (-1 = forever) and returns, per socket in the order
    /// given to `init`, whether a message is ready. An interrupting signal returns all false.
    public mutating func poll(timeout milliseconds: Int) throws(ZMQError) -> [Bool] {
        let count = items.count
        let status = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, Int32(count), milliseconds) }
        if status < 0 {
            let error = ZMQError.last("zmq_poll")
            if error.isInterrupted { return Array(repeating: false, count: count) }
            throw error
        }
        return items.map { ($0.revents & Int16(ZMQ_POLLIN)) != 0 }
    }
}
