import Credentials
import Foundation
import Schema
import Signing

/// Checks the signed third frame of a request before anything reaches a service (DESIGN.md,
/// Security): the proof's principal, its HMAC over `command + "\n" + payload` with the principal's
/// key (derived from server.key, so no lookup), the payload's `ts` within the clock window, a proof
/// never seen before, and that the principal may call the command (`SigningPolicy`, which the
/// client signs by). Every failure is code 1008 and the request goes no further.
struct Authenticator {
    static let window: Int64 = 300

    let secrets: Secrets
    private var replays = ReplayCache(window: Authenticator.window)
    private var derived: DerivedKeyCache
    /// Devices deleted while this gateway ran; their proofs are refused.
    var deleted = DeletedDevices()
    /// What workers sign into their READY.
    var challenges = WorkerChallenges()

    init(secrets: Secrets, keyCacheBytes: Int = 32 << 20) {
        self.secrets = secrets
        derived = DerivedKeyCache(byteLimit: keyCacheBytes)
    }

    /// A request that passed: the body to forward (`[command, payload]`) and the proof that vouched
    /// for it, which the service gets after the body (nil: only `device.register` passes without one).
    struct Admission {
        let body: [Data]
        let proof: VerifiedProof?
        /// Who signed it.
        let principal: Principal?
        var isSigned: Bool { proof != nil }
    }

    /// What passes of the request, or why it is refused.
    /// `known` is `command` in the table (nil for internal commands such as `events.fetch`); `claims`
    /// is the payload as the broker read it. A command that names one device is answered before its
    /// proof is looked at when its registration_id is not a string (6017) or, for a device command,
    /// missing (6001); app-wide queries may give a list.
    mutating func check(command: String, known: Command?, body: [Data], claims: PayloadKeys, now: Int64) -> Result<Admission, CommandError> {
        let rule = SigningPolicy.rule(for: known)
        if claims.registrationIDIsNotString, rule.device != .filter {
            return .failure(.invalid("\(SigningPolicy.deviceField) must be a string"))
        }
        if rule.device == .required, claims.registrationID == nil {
            return .failure(.empty("\(SigningPolicy.deviceField) is missing"))
        }
        if body.count == 2 {
            return rule.acceptsUnsigned ? .success(Admission(body: body, proof: nil, principal: nil)) : .failure(refusal("\(command) must be signed"))
        }
        guard body.count == 3, let proof = Proof(frame: body[2]) else {
            return .failure(.invalid("the third frame must be a proof: v1 <principal> <hex HMAC-SHA256>"))
        }
        guard let ts = claims.ts else { return .failure(refusal("a signed payload carries ts (Unix seconds)")) }
        guard ts.isWithin(Self.window, of: now) else { return .failure(refusal("proof is more than \(Self.window) s from the gateway's clock")) }

        let key: String
        var newlyDerived: KeyName?
        switch proof.principal {
        case .admin:
            key = secrets.admin
        case .service(let name):
            let cacheName = KeyName.service(name)
            if let cached = derived.key(cacheName) { key = cached } else {
                key = secrets.serviceSecret(name)
                newlyDerived = cacheName
            }
        case .app(let appKey):
            guard claims.appKey == appKey else { return .failure(refusal("the payload names another \(SigningPolicy.appField)")) }
            let name = KeyName.app(appKey)
            if let cached = derived.key(name) { key = cached } else {
                key = secrets.masterSecret(appKey: appKey)
                newlyDerived = Self.isWorthKeeping(appKey: appKey) ? name : nil
            }
        case .device(let id):
            guard claims.registrationID == id, let appKey = claims.appKey else {
                return .failure(refusal("the payload names another \(SigningPolicy.deviceField)"))
            }
            let name = KeyName.device(appKey: appKey, registrationID: id)
            if let cached = derived.key(name) { key = cached } else {
                key = secrets.deviceSecret(appKey: appKey, registrationID: id)
                newlyDerived = Self.isWorthKeeping(appKey: appKey, registrationID: id) ? name : nil
            }
        }
        let expected = Proof.signature(key: key, command: command, payload: body[1])
        guard HMAC.equal(expected, proof.signature) else { return .failure(refusal("proof does not verify")) }
        if let newlyDerived { derived.remember(key, as: newlyDerived) }   // a new key, once it verified
        if case .device(let id) = proof.principal, deleted.contains(id) { return .failure(refusal("device deleted")) }
        guard rule.signers.contains(proof.principal.role) else {
            return .failure(refusal("\(proof.principal) may not call \(command)"))
        }
        guard replays.insert(proof.signature, ts: ts, now: now) else { return .failure(refusal("proof already used")) }
        return .success(Admission(body: Array(body.prefix(2)), proof: VerifiedProof(frame: body[2], ts: ts), principal: proof.principal))
    }

    /// Whether a worker's READY carries a valid credential for the service it announces (DESIGN
    /// terms: PushBus's MDP extension, `WorkerCredential`) over a challenge this gateway gave `peer`;
    /// a plain READY without one is refused.
    mutating func admitWorker(service: String, credit: Int?, credential: [Data], peer: [UInt8], now: Int64,
                              nowMilliseconds: Int64) -> Result<Void, WorkerCredential.Refusal> {
        guard let credit, credential.count == 2 else {
            return .failure(.init("READY carries no credential: a worker proves it holds its service's key"))
        }
        let offered = WorkerCredential(stamp: credential[0], proof: credential[1])
        if case .failure(let refusal) = offered.verify(service: service, credit: credit, secrets: secrets, now: now, window: Self.window) {
            return .failure(refusal)
        }
        guard let challenge = offered.challenge, challenges.spend(challenge, by: peer, now: nowMilliseconds) else {
            return .failure(.init("the credential's challenge was not given to this connection, or was spent"))
        }
        return .success(())
    }

    /// Bytes the derived-key cache holds (`--key-cache-mb` bounds it).
    var keyCacheBytes: Int { derived.byteCount }

    /// Whether a derived key is worth keeping: only for an app_key and registration_id a service
    /// accepts (64 characters at most). A proof made with the deployment's secrets (pushbus-fuzz)
    /// verifies for any payload, and a device proof's key is named by the payload's app_key: kept,
    /// the fuzzer's 100-KB app_keys filled the whole cache (up to 2 MB an entry at 32 MiB).
    private static func isWorthKeeping(appKey: String, registrationID: String? = nil) -> Bool {
        guard (try? Validate.appKey(appKey)) != nil else { return false }
        return registrationID.map { (try? Validate.registrationID($0)) != nil } ?? true
    }

    private func refusal(_ reason: String) -> CommandError { CommandError(.appKeyInvalid, reason) }
}
