/// Why an HTTP server could not start.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// The address is not an IPv4 host and a port.
    case address(String)
    /// The address cannot be bound (taken, say).
    case cannotListen(String)
    /// The certificate or key cannot be read or used, or libmicrohttpd has no TLS.
    case tls(String)
    /// The loop's descriptors or thread could not be made.
    case loop(String)

    public var description: String {
        switch self {
        case .address(let text): "not an IPv4 host:port: \(text)"
        case .cannotListen(let address): "cannot listen on \(address)"
        case .tls(let reason): "TLS: \(reason)"
        case .loop(let reason): "HTTP loop: \(reason)"
        }
    }
}
