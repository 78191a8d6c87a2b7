/// Why the gateway cannot start as it was configured.
public enum GatewayError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `--metrics` is not an IPv4 `host:port`.
    case metricsAddress(String)
    /// Nothing could listen on the metrics address (taken, or not this machine's).
    case metricsUnavailable(String)
    /// The `--record` file cannot be created.
    case recordFile(path: String)

    public var description: String {
        switch self {
        case .metricsAddress(let address): "--metrics takes an IPv4 host:port, not \(address)"
        case .metricsUnavailable(let address): "cannot serve metrics on \(address): is the port taken, or the address not this machine's?"
        case .recordFile(let path): "cannot create the recording \(path)"
        }
    }
}
