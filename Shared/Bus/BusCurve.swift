import Credentials
import Foundation
import ZeroMQ

/// CURVE on the event bus (with `--curve`): the gateway's two bus endpoints are CURVE servers, and
/// its ZAP handler admits only peers holding the bus key pair derived from server.key, which every
/// PushBus service has and a client of the request endpoint does not. So no client can read or
/// write the bus, even one that holds the gateway's public key.
public struct BusCurve: Sendable {
    /// The gateway's public key (Z85).
    public let serverKey: String
    /// The pair every service connects with: its secret is HMAC-SHA256(server.key, "curve:bus").
    public let keys: CurveKeys

    /// The ZAP domain of the bus endpoints, so the handler tells them from the request endpoint.
    public static let domain = "bus"

    public init(serverKey: String, secrets: Secrets) throws {
        self.serverKey = serverKey
        keys = try Self.keys(secrets)
    }

    /// The bus key pair for this deployment's server.key.
    public static func keys(_ secrets: Secrets) throws -> CurveKeys {
        let hex = Array(HMAC.sha256Hex(key: secrets.serverKey, message: "curve:bus").utf8)
        let value: (UInt8) -> UInt8 = { $0 <= 0x39 ? $0 - 0x30 : $0 - 0x61 + 10 }
        let bytes = stride(from: 0, to: hex.count, by: 2).map { value(hex[$0]) << 4 | value(hex[$0 + 1]) }
        return try CurveKeys(secretBytes: bytes)
    }

    /// Makes a service's bus socket (PUB to events-in, SUB on events-out) a CURVE client with the bus pair.
    public func secure(_ socket: Socket) throws {
        try socket.makeCurveClient(serverKey: serverKey, own: keys)
    }
}
