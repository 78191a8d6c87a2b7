import Client
import Credentials
import Foundation
import JSON
import Schema
import Testing
@testable import GatewayKit

/// The gateway's proof check on its own: what it keeps of the keys it derives.
@Suite("authenticator")
struct AuthenticatorTests {
    let secrets = Secrets(admin: String(repeating: "a", count: 64), serverKey: String(repeating: "5", count: 64))

    /// Checks `command` as the operator's signer signs it (a device proof for a device command).
    func check(_ authenticator: inout Authenticator, _ command: String, _ payload: [String: JSONValue]) throws -> Bool {
        let body = Signer(secrets: secrets).sign(command: command, payload: WireCodec.encode(JSONValue.object(payload)))
        let claims = try WireCodec.decode(PayloadKeys.self, from: body[1])
        let result = authenticator.check(command: command, known: Command(rawValue: command), body: body, claims: claims,
                                         now: Int64(Date().timeIntervalSince1970))
        if case .success(let admission) = result { return admission.isSigned }
        return false
    }

    @Test func keysAreKeptOnlyForNamesAServiceAccepts() throws {
        var authenticator = Authenticator(secrets: secrets, keyCacheBytes: 4 << 20)
        let id = "0a1b2c3d4e5f60718293"
        for n in 0..<20 {
            let garbage = String(repeating: "x", count: 100_000 + n)
            #expect(try check(&authenticator, "device.get", ["app_key": garbage.json, "registration_id": id.json]),
                    "a proof made with the deployment's secrets verifies for any app_key")
            #expect(try check(&authenticator, "tags.list", ["app_key": String(repeating: "y", count: 300 + n).json]))
        }
        #expect(authenticator.keyCacheBytes == 0, "no garbage name is kept: \(authenticator.keyCacheBytes) bytes")
        #expect(try check(&authenticator, "device.get", ["app_key": "app1".json, "registration_id": id.json]))
        #expect(try check(&authenticator, "tags.list", ["app_key": "app1".json]))
        #expect(authenticator.keyCacheBytes > 0 && authenticator.keyCacheBytes < 1000, "a real device's and app's keys are")
    }
}
