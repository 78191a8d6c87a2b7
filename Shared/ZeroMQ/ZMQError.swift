import CZeroMQ

/// A failed libzmq call: the errno it left and libzmq's text for it.
public struct ZMQError: Error, CustomStringConvertible, Equatable, Sendable {
    public let errno: Int32
    public let operation: String

    public init(errno: Int32, operation: String) {
        self.errno = errno
        self.operation = operation
    }

    /// Reads `zmq_errno()` right after a failed call.
    static func last(_ operation: String) -> ZMQError {
        ZMQError(errno: zmq_errno(), operation: operation)
    }

    /// The context was terminated: every blocking call on it returns this.
    public var isTerminated: Bool { errno == ETERM }
    /// A non-blocking call found nothing to do.
    public var isWouldBlock: Bool { errno == EAGAIN }
    /// A signal interrupted the call; it is safe to retry.
    public var isInterrupted: Bool { errno == EINTR }

    public var description: String {
        "\(operation): \(String(cString: zmq_strerror(errno)))"
    }
}
