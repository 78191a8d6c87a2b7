/// Why the API server cannot start.
public enum ApiError: Error, CustomStringConvertible {
    case address(String)
    case unavailable(String)

    public var description: String {
        switch self {
        case .address(let text): "not an IPv4 host:port: \(text)"
        case .unavailable(let text): "cannot listen on \(text) (port taken?)"
        }
    }
}
