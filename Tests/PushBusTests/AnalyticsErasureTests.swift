import Credentials
import Foundation
import JSON
import Schema
import Testing
@testable import AnalyticsKit

/// `ma.erase`: one user's MA data goes, in one transaction; other users and the hourly counts stay.
@Suite("analytics erasure")
struct AnalyticsErasureTests {
    let ma: AnalyticsHarness

    init() throws { ma = try AnalyticsHarness() }

    func erase(_ euid: String) -> JSONValue {
        reply(ma.handler, "ma.erase", ["app_key": ma.app.json, "euid": euid.json], principal: .app(appKey: ma.app))
    }

    /// A user with something of every kind: identifiers, a contact, properties, a channel value,
    /// events in a session, an install, a device binding, and an anonymous EUID merged into it.
    func fullUser(_ device: String, _ name: String) -> String {
        let merged = ma.start("\(device)-old")
        _ = ma.ma("ma.identify", merged, #"{"anonymous_id":"anon-\#(name)"}"#)
        _ = ma.property(merged, #"{"op":"set","key":"plan","value":"trial"}"#)
        let euid = reply(ma.handler, "ma.start", ["app_key": ma.app.json, "device_id": device.json, "registration_id": "rid-\(name)".json],
                         principal: .device(registrationID: "rid-\(name)"))["euid"]?.string ?? ""
        _ = ma.ma("ma.identify", euid, #"{"user_id":"\#(name)","email":"\#(name)@example.com","anonymous_id":"anon-\#(name)"}"#)
        _ = ma.ma("ma.contact", euid, #"{"contacts":{"mobile_phone":"13800000000"}}"#)
        _ = ma.property(euid, #"{"op":"set","properties":{"level":"gold"}}"#)
        _ = ma.ma("ma.channel_value", euid, #"{"channel_id":136,"values":["x"]}"#)
        _ = ma.ma("ma.events", euid, #"{"events":[{"name":"buy","time":"2025-03-01T10:00:00Z"},{"name":"buy","time":"2025-03-01T10:05:00Z"}]}"#)
        return euid
    }

    @Test func eraseRemovesEverythingKeptAboutOneUserAndSaysWhat() throws {
        let alice = fullUser("phone-a", "alice")
        let bob = fullUser("phone-b", "bob")
        let bobBefore = ma.profile(bob)
        let erased = erase(alice)
        #expect(erased == json("""
            {"code":0,"euids":2,"identities":3,"contacts":1,"properties":2,"channel_values":1,"events":2,"sessions":1,
             "installs":2,"devices":1}
            """))
        #expect(ma.profile(alice).code == -2, "an erased EUID is unknown")
        #expect(erase(alice).code == -2)
        #expect(ma.profile(bob) == bobBefore, "other users are untouched")
        let left = try ma.handler.storage.store.read { db in
            try ["euids", "identities", "contacts", "properties", "channel_values", "events", "sessions", "installs", "device_euids"]
                .map { try db.value("SELECT COUNT(*) FROM \($0) WHERE euid = ?", alice).int ?? -1 }
        }
        #expect(left.allSatisfy { $0 == 0 })
        let counted = ma.call("stats.events", #"{"app_key":"app1","from":"2025-03-01T00:00:00Z","to":"2025-03-02T00:00:00Z","bucket":"day","name":"buy"}"#)
        #expect(counted["buckets"] == json(#"[{"start":"2025-03-01T00:00:00Z","count":4}]"#), "the hourly counts keep what she contributed")
        #expect(ma.start("phone-a") != alice, "her install starts afresh")
    }

    @Test func eraseChecksItsFields() {
        #expect(ma.call("ma.erase", #"{"app_key":"app1"}"#).code == 6001)
        #expect(ma.call("ma.erase", #"{"app_key":"app1","euid":"no such"}"#).code == 6017)
        #expect(ma.call("ma.erase", #"{"app_key":"app2","euid":"\#(ma.euid)"}"#).code == -2, "another app's EUID")
        #expect(ma.profile(ma.euid).code == 0)
    }
}
