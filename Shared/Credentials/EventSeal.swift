import Caches
import Foundation

/// The signature a publisher puts on each event it sends (frame 3 of `[topic, JSON, proof]`, and the
/// `proof` of a fetched event): `v1 service:<publisher> <hex HMAC-SHA256(service credential,
/// topic + "\n" + JSON)>`. Only a process holding server.key can make one, so a peer that reaches
/// the bus cannot put an event on it that a subscriber or the gateway would accept.
public enum EventSeal {
    /// The proof frame for `event` published under `topic` by `publisher`, whose credential is `key`.
    public static func proof(topic: String, event: Data, publisher: String, key: String) -> Data {
        Proof.frame(principal: .service(name: publisher), key: key, command: topic, payload: event)
    }

    /// The same proof under the publisher's credential made ready once (`HMACKey`).
    public static func proof(topic: String, event: Data, publisher: String, key: HMACKey) -> Data {
        Proof.frame(principal: .service(name: publisher), key: key, command: topic, payload: event)
    }
}

/// Checks event proofs, deriving each publisher's credential from server.key once. Owned by one thread.
public struct EventVerifier {
    private let secrets: Secrets
    /// Publisher names are few (a service or a shard of one), each credential made ready once
    /// (`HMACKey`). Only a name whose proof verified is kept, so garbage names make none; past 4096
    /// the cache starts over.
    private var keys = StartOverCache<String, HMACKey>(limit: 4096)

    public init(secrets: Secrets) { self.secrets = secrets }

    /// The service that signed `event` under `topic`, or nil when `proof` is not a valid publisher's proof.
    public mutating func publisher(topic: String, event: Data, proof: Data) -> String? {
        guard let proof = Proof(frame: proof), case .service(let name) = proof.principal else { return nil }
        if let key = keys[name] {
            return HMAC.equal(Proof.signature(key: key, command: topic, payload: event), proof.signature) ? name : nil
        }
        let credential = secrets.serviceSecret(name)
        guard HMAC.equal(Proof.signature(key: credential, command: topic, payload: event), proof.signature) else { return nil }
        keys.insert(HMACKey(credential), forKey: name)
        return name
    }
}
