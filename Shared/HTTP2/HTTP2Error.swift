/// Why an `HTTP2Client` could not be started. Failures of single requests are not errors: they come
/// back in their responses as an `HTTP2Failure`.
public enum HTTP2Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// The loop could not be set up: no epoll set or eventfd, or OpenSSL refused its context or the CA file.
    case setup(String)

    public var description: String {
        switch self {
        case .setup(let reason): "the HTTP/2 client could not be set up: \(reason)"
        }
    }
}
