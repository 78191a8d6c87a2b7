/// Why an HTTP server could not start.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// The address is not `IPv4:port`, or it cannot be bound (taken, say).
    case cannotListen(String)
    /// The certificate or key cannot be read or used, or libmicrohttpd has no TLS.
    case tls(String)
    /// The loop's descriptors or thread could not be made.
    case loop(String)

    public var description: String {
        switch self {
        case .cannotListen(let address): "cannot listen on \(address)"
        case .tls(let reason): "TLS: \(reason)"
        case .loop(let reason): "HTTP loop: \(reason)"
        }
    }
}
