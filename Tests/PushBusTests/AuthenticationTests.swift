import Client
import Credentials
import Foundation
import JSON
import Schema
import Testing

/// Signed requests as DESIGN.md's Security section fixes them, against the real gateway: every
/// failed check answers 1008 and changes nothing.
@Suite("authentication (integration)", .serialized)
struct AuthenticationTests {
    /// A device-style client: unsigned but for the proofs the test makes by hand.
    func send(_ client: MajordomoClient, _ command: String, _ fields: [String: JSONValue], principal: Principal?, key: String,
              ts: Date = Date()) throws -> (reply: JSONValue, body: [Data]) {
        var fields = fields
        fields["ts"] = .number(ts.timeIntervalSince1970.rounded(.down))
        fields["nonce"] = .string(RandomKey.hex(bytes: 8))
        let payload = WireCodec.encode(JSONValue.object(fields))
        var body = [Data(command.utf8), payload]
        if let principal { body.append(Proof(principal: principal, key: key, command: command, payload: payload).frame) }
        return (try resend(client, body), body)
    }

    func resend(_ client: MajordomoClient, _ body: [Data]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: client.request("device", body)[0])
    }

    @Test func everyForgedReplayedOrMisdirectedProofIsRefusedAndChangesNothing() throws {
        let stack = try TestStack().start(["registration", "tagging", "badge"])
        let operatorClient = try stack.client()
        _ = try operatorClient.json("app.create", ["name": "app1".json, "app_key": "app1".json])
        let raw = try MajordomoClient(endpoint: stack.endpoint, context: stack.context)   // no signer

        // A device registers unsigned and gets its secret.
        let registered = try resend(raw, [Data("device.register".utf8), Data(#"{"app_key":"app1","platform":"ios","device_id":"a"}"#.utf8)])
        let a = try #require(registered["registration_id"]?.string)
        let secretA = try #require(registered["device_secret"]?.string)
        #expect(secretA == stack.secrets.deviceSecret(appKey: "app1", registrationID: a))
        let b = try operatorClient.register(deviceID: "b")
        let device: (String) -> [String: JSONValue] = { ["app_key": "app1".json, "registration_id": $0.json] }
        func tags(_ id: String) throws -> JSONValue? { try operatorClient.json("tags.get", device(id))["tags"] }

        // The device's own proof works.
        let good = try send(raw, "tags.add", device(a).merging(["tags": .array(["mine".json])]) { $1 }, principal: .device(registrationID: a), key: secretA)
        #expect(good.reply.code == 0)

        // Forged: the right principal, the wrong key.
        #expect(try send(raw, "tags.add", device(a).merging(["tags": .array(["forged".json])]) { $1 },
                         principal: .device(registrationID: a), key: String(repeating: "0", count: 64)).reply.code == 1008)
        // Replayed: the same frames again.
        let replayed = try resend(raw, good.body)
        #expect(replayed.code == 1008)
        #expect(replayed["message"]?.string?.contains("already used") == true)
        // Another device's registration ID, with this device's proof, either way round.
        #expect(try send(raw, "tags.add", device(b).merging(["tags": .array(["hijack".json])]) { $1 },
                         principal: .device(registrationID: a), key: secretA).reply.code == 1008)
        #expect(try send(raw, "tags.add", device(b).merging(["tags": .array(["hijack".json])]) { $1 },
                         principal: .device(registrationID: b), key: secretA).reply.code == 1008)
        // Stale: outside the clock window.
        #expect(try send(raw, "tags.add", device(a).merging(["tags": .array(["old".json])]) { $1 },
                         principal: .device(registrationID: a), key: secretA, ts: Date().addingTimeInterval(-400)).reply.code == 1008)
        // Unsigned, and signed by a principal that may not call the command.
        #expect(try resend(raw, [Data("tags.add".utf8), WireCodec.encode(JSONValue.object(device(a).merging(["tags": .array(["x".json])]) { $1 }))]).code == 1008)
        // Another app's server: naming this app's key, or its own key with this app's device.
        #expect(try send(raw, "tags.add", device(a).merging(["tags": .array(["app".json])]) { $1 },
                         principal: .app(appKey: "app2"), key: stack.secrets.masterSecret(appKey: "app2")).reply.code == 1008)
        #expect(try send(raw, "tags.add", device(a).merging(["app_key": "app2".json, "tags": .array(["app".json])]) { $1 },
                         principal: .app(appKey: "app2"), key: stack.secrets.masterSecret(appKey: "app2")).reply.code == 1008)
        #expect(try send(raw, "alias.set", device(a).merging(["app_key": "app2".json, "alias": "stolen".json]) { $1 },
                         principal: .app(appKey: "app2"), key: stack.secrets.masterSecret(appKey: "app2")).reply.code == 1008)
        // A made-up device in its own name: tagging learns devices from registration, never from an app.
        #expect(try send(raw, "tags.add", ["app_key": "app2".json, "registration_id": "madeup-device".json, "tags": .array(["x".json])],
                         principal: .app(appKey: "app2"), key: stack.secrets.masterSecret(appKey: "app2")).reply.code == 6017)
        #expect(try send(raw, "audience.resolve", ["app_key": "app1".json, "tag": .array(["mine".json])],
                         principal: .device(registrationID: a), key: secretA).reply.code == 1008)

        #expect(try tags(a) == .array(["mine".json]), "none of the refused writes landed")
        #expect(try tags(b) == .array([]))

        // A wrong master secret: the push changes no badge.
        let apply: [String: JSONValue] = ["app_key": "app1".json, "registration_ids": .array([a.json]), "badge": "+5".json, "msg_id": "m1".json]
        #expect(try send(raw, "badge.apply", apply, principal: .app(appKey: "app1"), key: String(repeating: "f", count: 64)).reply.code == 1008)
        #expect(try operatorClient.json("badge.get", device(a))["value"] == .number(0))
        #expect(try send(raw, "audience.resolve", ["app_key": "app1".json, "tag": .array(["mine".json])],
                         principal: .app(appKey: "app1"), key: stack.secrets.masterSecret(appKey: "app1")).reply["total"] == .number(1),
                "the app's real master secret reads its audience")

        // An unknown app_key registers nothing; a wrong admin secret creates no app.
        let unknown = try resend(raw, [Data("device.register".utf8), Data(#"{"app_key":"nosuchapp","platform":"ios","device_id":"z"}"#.utf8)])
        #expect(unknown.code == 1008)
        #expect(try send(raw, "app.create", ["name": "evil".json, "app_key": "nosuchapp".json], principal: .admin,
                         key: String(repeating: "1", count: 64)).reply.code == 1008)
        #expect(try resend(raw, [Data("device.register".utf8), Data(#"{"app_key":"nosuchapp","platform":"ios","device_id":"z"}"#.utf8)]).code == 1008,
                "still no such app")
        let created = try send(raw, "app.create", ["name": "real".json, "app_key": "nosuchapp".json], principal: .admin, key: stack.secrets.admin)
        #expect(created.reply["master_secret"] == stack.secrets.masterSecret(appKey: "nosuchapp").json)
        #expect(try resend(raw, [Data("device.register".utf8), Data(#"{"app_key":"nosuchapp","platform":"ios","device_id":"z"}"#.utf8)])["is_new"] == .bool(true))
    }

    @Test func anUnsignedRegistrationCannotTakeOverARegisteredInstall() throws {
        let stack = try TestStack().start(["registration"])
        let operatorClient = try stack.client()
        _ = try operatorClient.json("app.create", ["name": "app1".json, "app_key": "app1".json])
        let raw = try MajordomoClient(endpoint: stack.endpoint, context: stack.context)   // no signer
        let install: [String: JSONValue] = ["app_key": "app1".json, "platform": "ios".json, "device_id": "victim-phone".json]
        func unsigned(_ fields: [String: JSONValue]) throws -> JSONValue {
            try resend(raw, [Data("device.register".utf8), WireCodec.encode(JSONValue.object(fields))])
        }
        func apnsToken(_ id: String) throws -> JSONValue? {
            try operatorClient.json("device.get", ["app_key": "app1".json, "registration_id": id.json])["device"]?["apns_token"]
        }

        // The victim's first registration goes unsigned.
        let victim = try unsigned(install.merging(["apns_token": "a1a1".json]) { $1 })
        #expect(victim["is_new"] == .bool(true))
        let id = try #require(victim["registration_id"]?.string)
        let secret = try #require(victim["device_secret"]?.string)

        // Anyone knowing the app_key and the device_id: refused, nothing revealed, nothing changed.
        let attack = try unsigned(install.merging(["apns_token": "bad0".json]) { $1 })
        #expect(attack.code == 1008)
        #expect(attack["message"]?.string?.contains("device_id is registered") == true)
        #expect(attack["registration_id"] == nil && attack["device_secret"] == nil)
        #expect(try unsigned(install.merging(["apns_token": "bad0".json, "registration_id": id.json]) { $1 }).code == 1008,
                "naming the registration ID without its proof")
        #expect(try send(raw, "device.register", install.merging(["apns_token": "bad0".json, "registration_id": id.json]) { $1 },
                         principal: .device(registrationID: id), key: String(repeating: "0", count: 64)).reply.code == 1008, "a forged proof")
        #expect(try apnsToken(id) == "a1a1".json)

        // The device itself re-registers, signed: the same ID, its new token.
        let own = try send(raw, "device.register", install.merging(["apns_token": "b2b2".json, "registration_id": id.json]) { $1 },
                           principal: .device(registrationID: id), key: secret).reply
        #expect(own.code == 0)
        #expect(own["registration_id"] == id.json && own["is_new"] == .bool(false))
        #expect(try apnsToken(id) == "b2b2".json)
        // Its app may too; a device_id that is not the install's is refused.
        let byApp = try send(raw, "device.register", install.merging(["apns_token": "c3c3".json, "registration_id": id.json]) { $1 },
                             principal: .app(appKey: "app1"), key: stack.secrets.masterSecret(appKey: "app1")).reply
        #expect(byApp["registration_id"] == id.json && byApp["is_new"] == .bool(false))
        #expect(try send(raw, "device.register", ["app_key": "app1".json, "platform": "ios".json, "device_id": "other-phone".json,
                                                  "apns_token": "dddd".json, "registration_id": id.json],
                         principal: .device(registrationID: id), key: secret).reply.code == 6017)
        #expect(try apnsToken(id) == "c3c3".json)

        // Another install still registers unsigned.
        let other = try unsigned(["app_key": "app1".json, "platform": "ios".json, "device_id": "other-phone".json])
        #expect(other["is_new"] == .bool(true) && other["registration_id"] != id.json)
    }
}
