/// Why an `HTTP2Client` could not be set up. Failures of single requests are not errors: they come
/// back as responses with `status` 0.
public enum HTTP2Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// libcurl refused to start or to take a setting (an old or oddly built libcurl).
    case setup(String)
    /// A request that cannot be put on the wire as given (a line break in a header, say). Carried
    /// in that request's response, never thrown.
    case request(String)

    public var description: String {
        switch self {
        case .setup(let reason): "libcurl could not be set up: \(reason)"
        case .request(let reason): "request not sent: \(reason)"
        }
    }
}
