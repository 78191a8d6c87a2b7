import Foundation

/// How a worker proves to the gateway that it is one of PushBus's own services (PushBus's MDP
/// extension, two frames after READY's credit): a stamp `"<ts> <challenge>"` and a proof
/// `v1 service:<name> <hex HMAC-SHA256(serviceSecret(name), "READY <name> <credit>\n" + stamp)>`.
/// The key derives from server.key, so a peer that only reaches the port cannot make one; the
/// signature covers the service and credit the READY announces; the challenge is one the gateway
/// gave this very connection a moment before (`mmi.challenge`), and is good once, so a READY seen
/// on the wire admits nobody else, before or after a gateway restart.
public struct WorkerCredential: Equatable, Sendable {
    public let stamp: Data
    public let proof: Data

    public init(stamp: Data, proof: Data) {
        self.stamp = stamp
        self.proof = proof
    }

    /// A credential for a READY of `service` with `credit`, over the gateway's `challenge`.
    public init(service: String, credit: Int, challenge: String, secrets: Secrets, now: Date = Date()) {
        stamp = Data("\(Int64(now.timeIntervalSince1970.rounded(.down))) \(challenge)".utf8)
        proof = Proof(principal: .service(name: service), key: secrets.serviceSecret(service),
                      command: Self.command(service, credit), payload: stamp).frame
    }

    /// The verified proof (for the replay check), or why the READY is refused.
    public func verify(service: String, credit: Int, secrets: Secrets, now: Int64, window: Int64) -> Result<Proof, Refusal> {
        guard let proof = Proof(frame: proof), proof.principal == .service(name: service) else {
            return .failure(Refusal("the proof is not one of service:\(service)"))
        }
        guard let ts else {
            return .failure(Refusal("the stamp is not \"<ts> <nonce>\""))
        }
        guard ts.isWithin(window, of: now) else { return .failure(Refusal("the stamp is more than \(window) s from the gateway's clock")) }
        let expected = Proof.signature(key: secrets.serviceSecret(service), command: Self.command(service, credit), payload: stamp)
        guard HMAC.equal(expected, proof.signature) else { return .failure(Refusal("the proof does not verify")) }
        return .success(proof)
    }

    /// The stamp's Unix seconds, when it has them.
    public var ts: Int64? { String(data: stamp, encoding: .utf8)?.split(separator: " ").first.flatMap { Int64($0) } }

    /// The stamp's challenge, when it has one.
    public var challenge: String? {
        let parts = String(data: stamp, encoding: .utf8)?.split(separator: " ") ?? []
        return parts.count == 2 ? String(parts[1]) : nil
    }

    private static func command(_ service: String, _ credit: Int) -> String { "READY \(service) \(credit)" }

    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}
