import CZeroMQ

/// A ZeroMQ context. The only ZeroMQ object that may be shared between threads; every socket
/// is created from one and belongs to the thread that created it.
public final class Context: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    public init() throws(ZMQError) {
        guard let handle = zmq_ctx_new() else { throw .last("zmq_ctx_new") }
        self.handle = handle
    }

    /// Makes every blocking call on this context's sockets return `ETERM`. Safe to call twice.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    deinit {
        // Sockets linger 0, so termination never waits on unsent messages.
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }
}
