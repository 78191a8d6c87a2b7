import Credentials
import Foundation
import JSON

/// A device's hello (DESIGN.md, "The device channel"): frame 1 `{"app_key","registration_id","ts","nonce"}`,
/// frame 2 `v1 device:<registration_id> <hex HMAC-SHA256(device_secret, "channel.hello\n" + frame 1)>`.
/// Checked here without a lookup (the device secret is derived from server.key); whether the proof
/// was used before, or the device deleted, its shard decides.
struct Hello: Equatable {
    let appKey: String
    let registrationID: String
    let ts: Int64
    /// The proof's signature, which the shard remembers so the hello is accepted once.
    let signature: String

    /// The command name a hello's proof signs, as a request's proof signs its command.
    static let command = "channel.hello"

    /// Why a hello is refused: the WebSocket close code and reason the device gets.
    struct Refusal: Error, Equatable {
        let code: UInt16
        let reason: String
        static let malformed = Refusal(code: 4400, reason: "hello must be {app_key, registration_id, ts, nonce}, then its proof")
        static let forged = Refusal(code: 4401, reason: "the proof does not match the hello")
        static let stale = Refusal(code: 4408, reason: "the hello's ts is too far from the server's clock")
        static let replayed = Refusal(code: 4409, reason: "this hello was used before")
        static let deleted = Refusal(code: 4410, reason: "device deleted")
        static let unavailable = Refusal(code: 4503, reason: "the device's shard did not answer; connect again later")
    }

    /// Checks `proof` (frame 2) against `payload` (frame 1) with keys derived from `secrets`, and
    /// `ts` against `now` within `window` seconds.
    init(payload: String, proof: String, secrets: Secrets, now: Double, window: Double) throws(Refusal) {
        guard payload.utf8.count <= 1024,
              case .object(let fields)? = try? JSONTreeDecoder().decode(JSONValue.self, from: Data(payload.utf8)),
              let appKey = fields["app_key"]?.string, !appKey.isEmpty, appKey.utf8.count <= 64,
              let registrationID = fields["registration_id"]?.string, !registrationID.isEmpty, registrationID.utf8.count <= 64,
              let ts = fields["ts"]?.number, ts == ts.rounded(), let nonce = fields["nonce"]?.string, !nonce.isEmpty,
              let parsed = Proof(frame: Data(proof.utf8)) else { throw .malformed }
        guard case .device(let signer) = parsed.principal, signer == registrationID else { throw .forged }
        let key = secrets.deviceSecret(appKey: appKey, registrationID: registrationID)
        guard HMAC.equal(Proof.signature(key: key, command: Self.command, payload: Data(payload.utf8)), parsed.signature) else {
            throw .forged
        }
        guard abs(now - ts) <= window else { throw .stale }
        self.appKey = appKey
        self.registrationID = registrationID
        self.ts = Int64(ts)
        signature = parsed.signature
    }
}
