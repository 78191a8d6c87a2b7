import Foundation
import JSON
import Testing
@testable import RegistrationKit

/// The push service's internal commands on registration: a page of tokens, a Live Activity's
/// holders page by page, and dead tokens disabled unless given again since.
@Suite("Registration: tokens for pushes")
struct RegistrationTokensTests {
    let handler: RegistrationHandler
    let clock = ManualClock()

    init() throws {
        let directory = TestPaths.temporaryDirectory("registration-tokens")
        let clock = self.clock
        handler = try RegistrationHandler(path: "\(directory)/registration.sqlite", secrets: .forTests, clock: { clock.now })
        _ = reply(handler, "app.create", ["name": "app1".json, "app_key": "app1".json])
    }

    func register(_ n: Int) -> String {
        reply(handler, "device.register", ["app_key": "app1".json, "platform": "ios".json, "device_id": "d\(n)".json,
                                           "apns_token": String(format: "%064x", n).json])["registration_id"]?.string ?? ""
    }

    func internalCall(_ command: String, _ payload: [String: JSONValue]) -> JSONValue {
        reply(handler, command, ["app_key": "app1".json].merging(payload) { $1 }, principal: .service(name: "push"))
    }

    @Test("a Live Activity's holders come a thousand at a time, in order, each once")
    func holdersPageByPage() {
        var all: [String] = []
        for n in 0..<1003 {
            let id = register(n)
            all.append(id)
            #expect(reply(handler, "device.live_activity_token", ["app_key": "app1".json, "registration_id": id.json,
                                                                  "live_activity_id": "match".json, "token": "beef".json],
                          principal: .device(registrationID: id)).code == 0)
        }
        var seen: [String] = []
        var after: String?
        repeat {
            var payload: [String: JSONValue] = ["live_activity_id": "match".json]
            if let after { payload["after"] = after.json }
            guard case .object(let devices)? = internalCall("device.tokens", payload)["devices"] else { Issue.record("no devices"); return }
            let page = devices.dictionary.keys.sorted()
            #expect(page.count <= 1000)
            seen += page
            after = page.count == 1000 ? page.last : nil
        } while after != nil
        #expect(seen == all.sorted())
    }

    @Test("a dead token is disabled, unless the device gave it again after APNs' timestamp")
    func deadTokens() {
        let a = register(1), b = register(2)
        let tokenA = String(format: "%064x", 1), tokenB = String(format: "%064x", 2)
        clock.advance(100)
        // b registers its token again after the time APNs says it died.
        _ = reply(handler, "device.update", ["app_key": "app1".json, "registration_id": b.json, "apns_token": tokenB.json],
                  principal: .device(registrationID: b))
        let dead: JSONValue = .array([
            .object(["registration_id": a.json, "token": tokenA.json, "kind": "apns".json, "since": .number(clock.now - 50)]),
            .object(["registration_id": b.json, "token": tokenB.json, "kind": "apns".json, "since": .number(clock.now - 50)]),
        ])
        #expect(internalCall("device.tokens_invalid", ["tokens": dead])["disabled"]?.number == 1)
        let tokens = internalCall("device.tokens", ["registration_ids": .array([a.json, b.json])])["devices"]
        #expect(tokens?[a]?["apns_token"] == nil)
        #expect(tokens?[b]?["apns_token"]?.string == tokenB)
    }
}
