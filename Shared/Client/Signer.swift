import Credentials
import Foundation
import JSON
import Schema
import Signing

/// Signs a client's requests as `SigningPolicy` says, the policy the gateway checks: as the device a
/// payload names or else the app (`SigningPolicy.clientSigners`), `app.create` as the admin,
/// internal commands as the service that asks (or the admin), and a first `device.register` not at
/// all. Keys come from replies (`device_secret`, `master_secret`) or, for tools on the operator's
/// machine, from the deployment's secrets. Owned by one thread.
public final class Signer {
    public var adminSecret: String?
    /// On the operator's machine: derives any app's or device's key.
    public var secrets: Secrets?
    public private(set) var masterSecrets: [String: String] = [:]
    public private(set) var deviceSecrets: [String: String] = [:]
    /// One of PushBus's own services (its MDP name and credential): signs internal commands
    /// (`events.fetch`) as itself rather than as the admin.
    public var service: (name: String, key: String)?
    /// Whether `secrets` may give device keys too; the REST API signs only as apps (and the admin),
    /// so a device command it sends is the app's, checked against the app's devices.
    public var derivesDeviceKeys = true
    /// Keys derived from `secrets`, so a replay of many requests per device derives each once.
    private var derived = DerivedKeyCache()

    public init(adminSecret: String? = nil, secrets: Secrets? = nil) {
        self.adminSecret = adminSecret ?? secrets?.admin
        self.secrets = secrets
    }

    /// One of PushBus's own services (`name`, a shard's included), signing internal commands as
    /// itself; with `forApps`, also any app's app-wide queries, derived from server.key.
    public convenience init(service name: String, secrets: Secrets, forApps: Bool = false) {
        if forApps { self.init(secrets: secrets) } else { self.init() }
        service = (name, secrets.serviceSecret(name))
    }

    public func remember(masterSecret: String, appKey: String) { masterSecrets[appKey] = masterSecret }
    public func remember(deviceSecret: String, registrationID: String) { deviceSecrets[registrationID] = deviceSecret }

    /// The body to send: `[command, payload with ts and nonce, proof]`, or unchanged when the command
    /// goes unsigned or no key is known (the gateway then answers 1008).
    public func sign(command: String, payload: Data, now: Date = Date()) -> [Data] {
        sign(Self.plan(command: command, payload: payload), now: now)
    }

    /// `sign(command:payload:)` for the plan's command and payload, without reading them again.
    public func sign(_ plan: SigningPlan, now: Date = Date()) -> [Data] {
        guard let fields = plan.fields,
              let (principal, key) = signature(plan.signers, appKey: fields.appKey, registrationID: fields.registrationID) else {
            return [plan.commandFrame, plan.payload]
        }
        let ts = Int64(now.timeIntervalSince1970.rounded(.down))
        let signed = Self.stamp(plan.payload, fields, ts: ts, nonce: nonces.next())
        return [plan.commandFrame, signed, Proof.frame(principal: principal, key: key, command: plan.command, payload: signed)]
    }

    /// What signing `payload` for `command` reads of them, whatever the keys: who may sign it.
    public static func plan(command: String, payload: Data) -> SigningPlan {
        let known = Command(rawValue: command)
        guard let fields = SigningFields(payload),
              !SigningPolicy.rule(for: known).goesUnsigned(namingDevice: fields.namesDevice) else {
            return SigningPlan(command: command, payload: payload, fields: nil, signers: [])
        }
        return SigningPlan(command: command, payload: payload, fields: fields,
                           signers: SigningPolicy.clientSigners(for: known, namingDevice: fields.registrationID != nil))
    }

    /// Two equal requests in one second must not look like a replay of each other: each gets a nonce
    /// of its own (`NonceCounter`).
    private var nonces = NonceCounter()

    /// `payload` with `ts` and `nonce` set. When it has neither, they are written in front of its
    /// members and its bytes are kept as they are (a replay signs every request, and this is most of
    /// the client's work); otherwise the payload is rewritten with them replaced.
    static func stamp(_ payload: Data, _ fields: SigningFields, ts: Int64, nonce: UInt64) -> Data {
        guard !fields.isStamped, let brace = payload.firstIndex(of: UInt8(ascii: "{")) else {
            guard case .object(var all)? = try? JSONTreeDecoder().decode(JSONValue.self, from: payload) else { return payload }
            all["ts"] = .number(Double(ts))
            all["nonce"] = .string(NonceCounter.hex(nonce))
            return WireCodec.encode(JSONValue.object(all))
        }
        // `{"nonce":"<16 hex digits>","ts":<at most 20 characters>,`: 60 bytes at most, on the stack.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { head in
            var count = 0
            func put(_ text: StaticString) {
                (head.baseAddress! + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
                count += text.utf8CodeUnitCount
            }
            put(#"{"nonce":""#)
            NonceCounter.writeHex(nonce, into: UnsafeMutableBufferPointer(rebasing: head[count..<(count + 16)]))
            count += 16
            put(#"","ts":"#)
            count += ts.writeDecimal(into: UnsafeMutableBufferPointer(rebasing: head[count...]))
            if !fields.isEmpty { put(",") }
            var stamped = Data(capacity: count + payload.count)
            stamped.append(head.baseAddress!, count: count)
            stamped.append(payload[payload.index(after: brace)...])
            return stamped
        }
    }

    /// Keeps the secrets a reply hands out (only `app.create` and `device.register` hand any out).
    public func learn(command: String, payload: Data, reply: Data) {
        guard command == Command.appCreate.name || command == Command.deviceRegister.name,
              let value = try? JSONTreeDecoder().decode(JSONValue.self, from: reply), value["code"]?.number == 0 else { return }
        if let secret = value["device_secret"]?.string, let id = value["registration_id"]?.string {
            deviceSecrets[id] = secret
        }
        if let secret = value["master_secret"]?.string, let key = value["app_key"]?.string {
            masterSecrets[key] = secret
        }
    }

    /// The first of `signers` this signer holds a key for.
    private func signature(_ signers: [SigningPolicy.Role], appKey: String?, registrationID: String?) -> (Principal, String)? {
        for role in signers {
            if let found = key(role, appKey: appKey, registrationID: registrationID) { return found }
        }
        return nil
    }

    private func key(_ role: SigningPolicy.Role, appKey: String?, registrationID: String?) -> (Principal, String)? {
        switch role {
        case .admin:
            return adminSecret.map { (.admin, $0) }
        case .service:
            return service.map { (.service(name: $0.name), $0.key) }
        case .app:
            guard let appKey, let key = masterSecrets[appKey] ?? secrets.map({ secrets in
                derived.key(.app(appKey)) { secrets.masterSecret(appKey: appKey) }
            }) else { return nil }
            return (.app(appKey: appKey), key)
        case .device:
            guard let id = registrationID, let appKey, let key = deviceSecrets[id] ?? secrets.flatMap({ secrets in
                derivesDeviceKeys ? derived.key(.device(appKey: appKey, registrationID: id)) { secrets.deviceSecret(appKey: appKey, registrationID: id) } : nil
            }) else { return nil }
            return (.device(registrationID: id), key)
        }
    }
}
