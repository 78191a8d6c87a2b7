import CZeroMQ
import Foundation

/// A CURVE key pair in Z85 text (40 characters each), as libzmq makes and reads them.
public struct CurveKeys: Equatable, Sendable {
    public let publicKey: String
    public let secretKey: String

    /// A fresh key pair from libzmq (libsodium underneath).
    public static func generate() throws(ZMQError) -> CurveKeys {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else { throw .last("zmq_curve_keypair") }
        return CurveKeys(publicKey: Self.text(publicKey), secretKey: Self.text(secretKey))
    }

    /// The pair whose secret key is `secretKey`.
    public init(secretKey: String) throws(ZMQError) {
        var publicKey = [CChar](repeating: 0, count: 41)
        guard secretKey.utf8.count == 40, zmq_curve_public(&publicKey, secretKey) == 0 else {
            throw ZMQError(errno: EINVAL, operation: "zmq_curve_public")
        }
        self.publicKey = Self.text(publicKey)
        self.secretKey = secretKey
    }

    /// The pair whose secret key is these 32 bytes (made elsewhere, e.g. derived from a shared secret).
    public init(secretBytes: [UInt8]) throws(ZMQError) {
        guard secretBytes.count == 32 else { throw ZMQError(errno: EINVAL, operation: "zmq_z85_encode") }
        var text = [CChar](repeating: 0, count: 41)
        guard zmq_z85_encode(&text, secretBytes, 32) != nil else { throw .last("zmq_z85_encode") }
        try self.init(secretKey: Self.text(text))
    }

    /// The 32 bytes a Z85 public key stands for (what a ZAP request carries as CURVE credentials).
    public static func bytes(of key: String) -> Data? {
        guard key.utf8.count == 40 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard zmq_z85_decode(&bytes, key) != nil else { return nil }
        return Data(bytes)
    }

    private init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    private static func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Socket {
    /// Makes this (binding) socket a CURVE server: every peer must encrypt, and plain peers are refused.
    /// With `domain`, a ZAP handler (RFC 27) in the same context decides who may connect.
    public func makeCurveServer(_ keys: CurveKeys, domain: String? = nil) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVER, Int32(1))
        try setOption(ZMQ_CURVE_SECRETKEY, Data(keys.secretKey.utf8))
        if let domain { try setOption(ZMQ_ZAP_DOMAIN, Data(domain.utf8)) }
    }

    /// Makes this socket a CURVE client of the server with public key `serverKey`, with `own` key
    /// pair (a fresh one by default: the server then knows nothing of who connects).
    public func makeCurveClient(serverKey: String, own given: CurveKeys? = nil) throws(ZMQError) {
        let own: CurveKeys
        if let given { own = given } else { own = try CurveKeys.generate() }
        try setOption(ZMQ_CURVE_SERVERKEY, Data(serverKey.utf8))
        try setOption(ZMQ_CURVE_PUBLICKEY, Data(own.publicKey.utf8))
        try setOption(ZMQ_CURVE_SECRETKEY, Data(own.secretKey.utf8))
    }
}
