import Credentials
import Foundation
import JSON
import Schema
import Testing
@testable import AnalyticsKit

/// A device acts only on the MA users bound to it (`DeviceBindings`); the app on any user of its app.
@Suite("analytics device bindings")
struct AnalyticsDeviceBindingTests {
    let ma: AnalyticsHarness

    init() throws { ma = try AnalyticsHarness() }

    /// `command` signed by the device `id`: `payload` plus `app_key`, `registration_id` and `euid` if given.
    func signed(by id: String, _ command: String, _ payload: String, euid: String? = nil) -> JSONValue {
        var fields = object(payload).merging(["app_key": ma.app.json, "registration_id": id.json]) { given, _ in given }
        if let euid { fields["euid"] = euid.json }
        return reply(ma.handler, command, fields, principal: .device(registrationID: id))
    }

    func start(by id: String, _ device: String, user: String? = nil) -> String {
        let userField = user.map { #","user":\#($0)"# } ?? ""
        return signed(by: id, "ma.start", #"{"device_id":"\#(device)"\#(userField)}"#)["euid"]?.string ?? ""
    }

    func identify(by id: String, _ euid: String, _ fields: String) -> JSONValue {
        signed(by: id, "ma.identify", #"{"euid":"\#(euid)",\#(fields)}"#)
    }

    @Test func aDeviceGetsItsOwnEUIDWhateverDeviceIDItNames() {
        let a = start(by: "ra", "phone-a")
        #expect(a.count == 24)
        #expect(start(by: "ra", "phone-a") == a)
        let b = start(by: "rb", "phone-a")
        #expect(b != a && b.count == 24, "another install's device_id gives its EUID to no one else")
        #expect(start(by: "rb", "phone-b") == b, "a device keeps its EUID")
        #expect(ma.start("phone-a") == a, "the app still finds the install where its device put it")
    }

    @Test func aDeviceCannotReachAnotherUserThroughTheirIdentifiers() {
        let a = start(by: "ra", "phone-a")
        #expect(identify(by: "ra", a, #""user_id":"alice","email":"alice@example.com""#)["euid"] == a.json)
        let anonymous = start(by: "rc", "phone-c")
        #expect(identify(by: "rc", anonymous, #""phone":"+6580000000""#).code == 0)
        #expect(ma.property(anonymous, #"{"op":"set","key":"level","value":"gold"}"#).code == 0)

        #expect(start(by: "rb", "phone-b", user: #"{"user_id":"alice"}"#) != a, "claiming a user_id")
        let b = start(by: "rb", "phone-b")
        let claimed = identify(by: "rb", b, #""user_id":"alice","email":"alice@example.com","phone":"+6580000000""#)
        #expect(claimed["euid"] == b.json, "neither the identified user nor the anonymous one")
        #expect(ma.fieldResults(claimed) == json("""
            {"user_id":{"code":-1,"msg":"User identifier belongs to another user"},
             "email":{"code":-1,"msg":"User identifier belongs to another user"},
             "phone":{"code":-1,"msg":"User identifier belongs to another user"}}
            """))
        #expect(ma.profile(a)["identities"] == json(#"{"user_id":"alice","email":"alice@example.com"}"#))
        #expect(ma.profile(anonymous)["identities"] == json(#"{"phone":"+6580000000"}"#), "not merged into B")
        #expect(ma.properties(anonymous) == json(#"{"level":"gold"}"#))
        #expect(ma.profile(b)["identities"] == json("{}"))
    }

    @Test func aDeviceNamingAnEUIDNotBoundToItIsRefusedAndChangesNothing() {
        let a = start(by: "ra", "phone-a")
        #expect(signed(by: "ra", "ma.contact", #"{"euid":"\#(a)","contacts":{"email":"alice@example.com"}}"#).code == 0)
        _ = start(by: "rb", "phone-b")
        let refused: [(String, String)] = [
            ("ma.profile", "{}"),
            ("ma.property", #"{"op":"set","key":"level","value":"stolen"}"#),
            ("ma.identify", #"{"user_id":"mallory"}"#),
            ("ma.contact", #"{"contacts":{"email":"mallory@example.com"}}"#),
            ("ma.channel_value", #"{"channel_id":1,"values":["x"]}"#),
            ("ma.events", #"{"events":[{"name":"fake"}]}"#),
        ]
        for (command, fields) in refused {
            let answer = signed(by: "rb", command, fields, euid: a)
            #expect(answer.code == 1008, "\(command)")
            #expect(answer["message"]?.string?.contains("not this device's") == true, "\(command)")
        }
        #expect(signed(by: "rb", "ma.profile", #"{"euid":"\#(a)"}"#)["contacts"] == nil, "nothing revealed")
        let own = signed(by: "ra", "ma.profile", #"{"euid":"\#(a)"}"#)
        #expect(own.code == 0)
        #expect(own["contacts"] == json(#"{"email":"alice@example.com"}"#))
        #expect(own["properties"] == json("{}") && own["identities"] == json("{}"), "none of the refused changed it")
        #expect(reply(ma.handler, "ma.profile", ["app_key": ma.app.json, "euid": a.json], principal: .app(appKey: ma.app)).code == 0,
                "the app reaches every user of its app")
    }

    @Test func aUserWhoSignsInAgainOnTheSameDeviceGetsTheirEUIDBack() {
        let first = start(by: "ra", "phone-a")
        #expect(identify(by: "ra", first, #""user_id":"alice""#)["euid"] == first.json)
        let second = identify(by: "ra", first, #""user_id":"bob""#)["euid"]?.string ?? ""
        #expect(second != first, "another user signs in: a new EUID")
        #expect(start(by: "ra", "phone-a") == second)
        #expect(identify(by: "ra", second, #""user_id":"alice""#)["euid"] == first.json, "an EUID this device held")
        #expect(start(by: "ra", "phone-a") == first)
        #expect(signed(by: "ra", "ma.profile", #"{"euid":"\#(second)"}"#).code == 0)
    }

    @Test func aDeviceMayNotEraseAUser() {
        let a = start(by: "ra", "phone-a")
        #expect(signed(by: "ra", "ma.erase", #"{"euid":"\#(a)"}"#).code == 1008)
        #expect(signed(by: "ra", "ma.profile", #"{"euid":"\#(a)"}"#).code == 0)
    }
}
