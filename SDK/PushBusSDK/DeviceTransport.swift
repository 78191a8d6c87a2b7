import Foundation

/// How the SDK reaches the device edge (`POST /v1/device/<command>`): one request at a time, from
/// the SDK's own queue, which may block on it. `SocketTransport` (HTTP/1.1 on a kept connection,
/// TLS by OpenSSL, a private CA allowed) is what Linux uses; `URLSessionTransport` what Apple
/// platforms use (Foundation on Linux cannot be told to trust a private CA).
public protocol DeviceTransport: AnyObject {
    /// The answer's status and body, or throws `TransportError` when no answer came.
    func post(command: String, payload: Data, proof: String?) throws -> (status: Int, body: Data)
    /// Drops any kept connection.
    func close()
}

public struct TransportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
