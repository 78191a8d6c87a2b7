import CZeroMQ

/// Waits for input on a fixed set of sockets, owned by the same thread as the sockets.
public struct Poller {
    private var items: [zmq_pollitem_t]
    private let sockets: [Socket]

    /// Polls `sockets` and, after them, plain descriptors `fds` (an eventfd another thread writes
    /// to wake the loop, say) for reading.
    public init(_ sockets: [Socket], fds: [Int32] = []) {
        self.sockets = sockets
        items = sockets.map { zmq_pollitem_t(socket: $0.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0) }
            + fds.map { zmq_pollitem_t(socket: nil, fd: $0, events: Int16(ZMQ_POLLIN), revents: 0) }
    }

    /// Blocks up to `timeout` milliseconds (-1 = forever) and returns the sockets that have a
    /// message ready; none when a signal interrupted the wait.
    public mutating func poll(timeout milliseconds: Int) throws(ZMQError) -> Ready {
        let count = items.count
        let status = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, Int32(count), milliseconds) }
        if status < 0 {
            let error = ZMQError.last("zmq_poll")
            guard error.isInterrupted else { throw error }
            for index in items.indices { items[index].revents = 0 }
        }
        return Ready(items: items, sockets: sockets)
    }

    /// The sockets one poll found ready, in the order given to the poller.
    public struct Ready: Sequence {
        fileprivate let items: [zmq_pollitem_t]
        fileprivate let sockets: [Socket]

        /// Whether `socket` has a message ready; false for a socket the poller does not watch.
        public func contains(_ socket: Socket) -> Bool {
            items.contains { $0.socket == socket.handle && Self.isReady($0) }
        }

        public var isEmpty: Bool { !items.contains(where: Self.isReady) }

        /// Whether plain descriptor `fd` is readable.
        public func contains(fd: Int32) -> Bool {
            items.contains { $0.socket == nil && $0.fd == fd && Self.isReady($0) }
        }

        public func makeIterator() -> Iterator { Iterator(ready: self) }

        public struct Iterator: IteratorProtocol {
            fileprivate let ready: Ready
            private var index = 0

            fileprivate init(ready: Ready) { self.ready = ready }

            public mutating func next() -> Socket? {
                while index < ready.sockets.count {
                    defer { index += 1 }
                    if Ready.isReady(ready.items[index]) { return ready.sockets[index] }
                }
                return nil
            }
        }

        private static func isReady(_ item: zmq_pollitem_t) -> Bool { item.revents & Int16(ZMQ_POLLIN) != 0 }
    }
}
