import Credentials
import Foundation
import JSON
import Schema
import Testing
@testable import RegistrationKit

@Suite("registration handler")
struct RegistrationHandlerTests {
    let clock = ManualClock()
    let handler: RegistrationHandler
    let directory = TestPaths.temporaryDirectory("registration")

    init() throws {
        let clock = self.clock
        handler = try RegistrationHandler(path: "\(directory)/registration.sqlite", secrets: .forTests, clock: { clock.now })
        for app in ["app1", "app2", "a"] { _ = reply(handler, "app.create", ["name": app.json, "app_key": app.json]) }
    }

    func register(_ appKey: String = "app1", deviceID: String? = nil, apnsToken: String? = nil) -> JSONValue {
        var payload: [String: JSONValue] = ["app_key": appKey.json, "platform": "ios".json]
        if let deviceID { payload["device_id"] = deviceID.json }
        if let apnsToken { payload["apns_token"] = apnsToken.json }
        return reply(handler, "device.register", payload)
    }

    /// `device.register` naming `id`, signed by `principal` (nil: unsigned).
    func reregister(_ id: String, app: String = "app1", deviceID: String? = nil, apnsToken: String? = nil,
                    by principal: Principal?) -> JSONValue {
        var payload: [String: JSONValue] = ["app_key": app.json, "platform": "ios".json, "registration_id": id.json]
        if let deviceID { payload["device_id"] = deviceID.json }
        if let apnsToken { payload["apns_token"] = apnsToken.json }
        return reply(handler, "device.register", payload, principal: principal)
    }

    func newDevice(_ appKey: String = "app1") -> String { register(appKey)["registration_id"]?.string ?? "" }

    func device(_ id: String, _ extra: [String: JSONValue] = [:], app: String = "app1") -> [String: JSONValue] {
        ["app_key": app.json, "registration_id": id.json].merging(extra) { _, new in new }
    }

    // MARK: app.create

    @Test func createAppReturnsKeyAndSecret() {
        let created = reply(handler, "app.create", ["name": "demo".json])
        #expect(created.code == 0)
        #expect(created["app_key"]?.string?.count == 24)
        #expect(created["master_secret"]?.string?.count == 64)
        #expect(reply(handler, "app.create", [:]).code == 6001)
        #expect(reply(handler, "app.create", ["name": String(repeating: "n", count: 129).json]).code == 6017)
    }

    // MARK: device.register

    @Test func registrationIDsBeginWithTheirSecondAndEndRandom() {
        var randomParts = Set<String>()
        var issued: [String] = []
        for _ in 0..<500 {
            let id = newDevice()
            #expect(id.count == 20, "8 hex digits of the second, 48 random bits as hex")
            let isHex = id.allSatisfy(\.isHexDigit)
            #expect(isHex)
            #expect(id.hasPrefix("6553f100"), "issued at 1,700,000,000 (0x6553f100)")
            randomParts.insert(String(id.dropFirst(8)))
            issued.append(id)
        }
        #expect(randomParts.count == 500)
        clock.advance(1)
        let later = newDevice()
        #expect(later.hasPrefix("6553f101"))
        #expect(issued.allSatisfy { $0 < later }, "an ID issued a second later sorts after every earlier one")
    }

    @Test func sameInstallGetsSameRegistrationID() {
        let first = register(deviceID: "install-1")
        let id = first["registration_id"]?.string ?? ""
        let again = reregister(id, deviceID: "install-1", by: .device(registrationID: id))
        #expect(first["is_new"] == .bool(true))
        #expect(again["is_new"] == .bool(false))
        #expect(first["registration_id"] == again["registration_id"])
        #expect(again["device_secret"] == first["device_secret"])
        #expect(register("app2", deviceID: "install-1")["registration_id"] != first["registration_id"])
        #expect(register()["registration_id"] != register()["registration_id"], "no device_id: a new ID each time")
    }

    @Test func anUnsignedRegistrationOfARegisteredInstallIsRefusedAndRevealsNothing() {
        let first = register(deviceID: "install-1", apnsToken: "aa11")
        let id = first["registration_id"]?.string ?? ""
        let attack = register(deviceID: "install-1", apnsToken: "bad0")
        #expect(attack.code == 1008)
        #expect(attack["message"]?.string?.contains("re-register signed by that device") == true)
        #expect(attack["registration_id"] == nil)
        #expect(attack["device_secret"] == nil)
        #expect(reregister(id, deviceID: "install-1", by: nil).code == 1008, "naming the ID does not make it signed")
        #expect(reply(handler, "device.get", device(id))["device"]?["apns_token"] == "aa11".json, "nothing changed")
    }

    @Test func aSignedReRegistrationRefreshesTheTokensOfItsOwnDeviceOnly() {
        let id = register(deviceID: "install-1", apnsToken: "aa11")["registration_id"]?.string ?? ""
        let other = register(deviceID: "install-2")["registration_id"]?.string ?? ""
        let byDevice = reregister(id, deviceID: "install-1", apnsToken: "bb22", by: .device(registrationID: id))
        #expect(byDevice["registration_id"] == id.json)
        #expect(byDevice["is_new"] == .bool(false))
        #expect(reply(handler, "device.get", device(id))["device"]?["apns_token"] == "bb22".json)
        #expect(reregister(id, apnsToken: "cc33", by: .app(appKey: "app1"))["is_new"] == .bool(false), "its app may, device_id left out")
        #expect(reply(handler, "device.get", device(id))["device"]?["apns_token"] == "cc33".json)

        #expect(reregister(id, apnsToken: "dd44", by: .device(registrationID: other)).code == 1008, "another device")
        #expect(reregister(id, apnsToken: "dd44", by: .app(appKey: "app2")).code == 1008, "another app")
        #expect(reregister(id, app: "app2", apnsToken: "dd44", by: .app(appKey: "app2")).code == 1008, "a device of another app")
        #expect(reregister(id, deviceID: "install-2", apnsToken: "dd44", by: .device(registrationID: id)).code == 6017,
                "an install keeps its device_id")
        #expect(reregister("0123456789abcdef0123", by: .app(appKey: "app1")).code == 6017, "unknown registration_id")
        #expect(reply(handler, "device.get", device(id))["device"]?["apns_token"] == "cc33".json, "none of the refused changed it")
    }

    @Test func registerValidatesItsFields() {
        #expect(reply(handler, "device.register", ["platform": "ios".json]).code == 1005)
        #expect(reply(handler, "device.register", ["app_key": "".json, "platform": "ios".json]).code == 1005)
        #expect(reply(handler, "device.register", ["app_key": "bad key!".json, "platform": "ios".json]).code == 1008)
        #expect(reply(handler, "device.register", ["app_key": "a".json]).code == 6001)
        #expect(reply(handler, "device.register", ["app_key": "a".json, "platform": "iOS 17".json]).code == 6017)
        #expect(reply(handler, "device.register", ["app_key": "a".json, "platform": "ios".json, "apns_token": "xyz".json]).code == 6017)
        #expect(reply(handler, "device.register", ["app_key": "a".json, "platform": "ios".json, "apns_token": "abc".json]).code == 6017)
        #expect(reply(handler, "device.register", ["app_key": "a".json, "platform": "ios".json,
                                                   "device_id": String(repeating: "d", count: 129).json]).code == 6017)
        #expect(reply(handler, "device.register", ["app_key": .number(5), "platform": "ios".json]).code == 6017)
    }

    @Test func registerKeepsTokenAndProductionFlag() {
        let id = reply(handler, "device.register", ["app_key": "app1".json, "platform": "ios".json, "device_id": "i".json,
                                                    "apns_token": "ABCDEF01".json, "apns_production": .bool(true),
                                                    "sdk_version": "5.2.0".json])["registration_id"]?.string ?? ""
        let stored = reply(handler, "device.get", device(id))["device"]
        #expect(stored?["apns_token"] == "abcdef01".json, "tokens are stored lower-case")
        #expect(stored?["apns_production"] == .bool(true))
        #expect(stored?["sdk_version"] == "5.2.0".json)
    }

    @Test func onlyANewDeviceIsAnnounced() throws {
        let id = register(deviceID: "install-1")["registration_id"]?.string ?? ""
        _ = reregister(id, deviceID: "install-1", by: .device(registrationID: id))
        let events = handler.storage.outbox.takeCommitted()
        #expect(events.map(\.topic) == ["device.registered"])
        let event = try JSONDecoder().decode(Event<DeviceRegisteredEvent>.self, from: events[0].event)
        #expect(event.sequence == 1)
        #expect(event.publisher == "registration")
        #expect(event.body.appKey == "app1")
    }

    // MARK: device.get and ownership

    @Test func getChecksTheDeviceAndItsApp() {
        let id = newDevice()
        #expect(reply(handler, "device.get", device(id))["device"]?["platform"] == "ios".json)
        #expect(reply(handler, "device.get", device(id, app: "app2")).code == 1008)
        #expect(reply(handler, "device.get", device("0000000000")).code == 6017)
        #expect(reply(handler, "device.get", ["app_key": "app1".json]).code == 6001)
        #expect(reply(handler, "device.get", device("not valid!")).code == 6017)
        #expect(reply(handler, "device.get", ["registration_id": id.json]).code == 1005)
    }

    // MARK: device.update

    @Test func updateSetsTokensLanguageAndTimeZone() {
        let id = newDevice()
        let update = device(id, ["apns_token": "aa".json, "voip_token": "bb".json, "language": "zh_Hans".json,
                                 "timezone": "Asia/Shanghai".json])
        #expect(reply(handler, "device.update", update).code == 0)
        let stored = reply(handler, "device.get", device(id))["device"]
        #expect(stored?["apns_token"] == "aa".json)
        #expect(stored?["voip_token"] == "bb".json)
        #expect(stored?["language"] == "zh_Hans".json)
        #expect(stored?["timezone"] == "Asia/Shanghai".json)

        #expect(reply(handler, "device.update", device(id, ["voip_token": .null])).code == 0)
        let after = reply(handler, "device.get", device(id))["device"]
        #expect(after?["voip_token"] == nil, "null unregisters the VoIP token")
        #expect(after?["language"] == "zh_Hans".json, "fields left out keep their value")
    }

    @Test func languageAndTimeZoneChangesAreAnnounced() throws {
        let id = newDevice()
        _ = handler.storage.outbox.takeCommitted()
        #expect(reply(handler, "device.update", device(id, ["apns_token": "aa".json])).code == 0)
        #expect(handler.storage.outbox.takeCommitted().isEmpty, "a token change is not announced")
        #expect(reply(handler, "device.update", device(id, ["timezone": "Asia/Bangkok".json, "voip_token": "bb".json])).code == 0)
        #expect(reply(handler, "device.update", device(id, ["language": "th".json])).code == 0)
        #expect(reply(handler, "device.update", device(id, ["timezone": "Nowhere".json])).code == 6017)
        let events = handler.storage.outbox.takeCommitted()
        #expect(events.map(\.topic) == ["device.updated", "device.updated"])
        let bodies = try events.map { try JSONDecoder().decode(Event<DeviceUpdatedEvent>.self, from: $0.event).body }
        #expect(bodies == [DeviceUpdatedEvent(appKey: "app1", registrationID: id, timezone: "Asia/Bangkok"),
                           DeviceUpdatedEvent(appKey: "app1", registrationID: id, language: "th")])
    }

    @Test func updateRefusesBadFieldsAndChangesNothing() {
        let id = newDevice()
        #expect(reply(handler, "device.update", device(id)).code == 6001)
        #expect(reply(handler, "device.update", device(id, ["timezone": "Mars/Olympus".json])).code == 6017)
        #expect(reply(handler, "device.update", device(id, ["language": "en US".json])).code == 6017)
        #expect(reply(handler, "device.update", device(id, ["language": String(repeating: "a", count: 36).json])).code == 6017)
        #expect(reply(handler, "device.update", device(id, ["voip_token": "zz".json])).code == 6017)
        #expect(reply(handler, "device.update", device(id, ["language": "en".json, "timezone": "Nowhere".json])).code == 6017)
        #expect(reply(handler, "device.get", device(id))["device"]?["language"] == nil, "a refused update changes nothing")
    }

    // MARK: device.mobile

    @Test(arguments: ["+8613800000000", "13800000000", "+1-202-555-0100", "0", "12345678901234567890"])
    func acceptedMobileNumbers(_ number: String) {
        let id = newDevice()
        #expect(reply(handler, "device.mobile", device(id, ["mobile": number.json])).code == 0)
        #expect(reply(handler, "device.get", device(id))["device"]?["mobile"] == number.json)
    }

    @Test(arguments: [("-123", 6023), ("a123", 6023), ("12+34", 6023), ("123 456", 6023), ("++1", 6023),
                      ("123456789012345678901", 6025), ("+12345678901234567890", 6025)])
    func refusedMobileNumbers(_ number: String, _ code: Int) {
        let id = newDevice()
        #expect(reply(handler, "device.mobile", device(id, ["mobile": number.json])).code == code)
        #expect(reply(handler, "device.get", device(id))["device"]?["mobile"] == nil)
    }

    @Test func emptyOrNullMobileUnbinds() {
        let id = newDevice()
        for unbind: JSONValue? in ["".json, .null, nil] {
            #expect(reply(handler, "device.mobile", device(id, ["mobile": "+100".json])).code == 0)
            clock.advance(10)
            var payload = device(id)
            if let unbind { payload["mobile"] = unbind }
            #expect(reply(handler, "device.mobile", payload).code == 0)
            #expect(reply(handler, "device.get", device(id))["device"]?["mobile"] == nil)
            clock.advance(10)
        }
    }

    @Test func mobileIsLimitedToThreeSetsInTenSeconds() {
        let id = newDevice()
        for n in 1...3 {
            #expect(reply(handler, "device.mobile", device(id, ["mobile": "+10\(n)".json])).code == 0)
            clock.advance(3)
        }
        #expect(reply(handler, "device.mobile", device(id, ["mobile": "+109".json])).code == 6011)
        #expect(reply(handler, "device.mobile", device(id, ["mobile": "bad".json])).code == 6011, "rate is checked before format")
        #expect(reply(handler, "device.get", device(id))["device"]?["mobile"] == "+103".json, "a refused set changes nothing")
        let other = newDevice()
        #expect(reply(handler, "device.mobile", device(other, ["mobile": "+1".json])).code == 0, "the limit is per device")
        clock.advance(1.01)
        #expect(reply(handler, "device.mobile", device(id, ["mobile": "+104".json])).code == 0, "the first call left the window")
    }

    // MARK: Live Activity

    @Test func liveActivityStartTokenSetReplaceRemove() {
        let id = newDevice()
        let set = reply(handler, "device.live_activity_start_token",
                        device(id, ["activity_attributes": "DeliveryAttributes".json, "token": "AA01".json]))
        #expect(set.code == 0)
        #expect(set["activity_attributes"] == "DeliveryAttributes".json)
        _ = reply(handler, "device.live_activity_start_token",
                  device(id, ["activity_attributes": "DeliveryAttributes".json, "token": "bb02".json]))
        #expect(reply(handler, "device.get", device(id))["device"]?["live_activity_start_tokens"]
                == .object(["DeliveryAttributes": "bb02".json]))
        _ = reply(handler, "device.live_activity_start_token",
                  device(id, ["activity_attributes": "DeliveryAttributes".json, "token": .null]))
        #expect(reply(handler, "device.get", device(id))["device"]?["live_activity_start_tokens"] == .object([:]))
        #expect(reply(handler, "device.live_activity_start_token", device(id, ["activity_attributes": "A".json])).code == 6001)
        #expect(reply(handler, "device.live_activity_start_token", device(id, ["token": "aa".json])).code == 6001)
        #expect(reply(handler, "device.live_activity_start_token",
                      device(id, ["activity_attributes": "A".json, "token": "not hex".json])).code == 6017)
    }

    @Test func liveActivityIDIsAtMost24Bytes() {
        let id = newDevice()
        func save(_ activity: String) -> Int? {
            reply(handler, "device.live_activity_token", device(id, ["live_activity_id": activity.json, "token": "aa".json])).code
        }
        #expect(save(String(repeating: "x", count: 24)) == 0)
        #expect(save(String(repeating: "x", count: 25)) == 6017)
        #expect(save(String(repeating: "订", count: 8)) == 0, "8 CJK characters are 24 bytes")
        #expect(save(String(repeating: "订", count: 9)) == 6017, "9 CJK characters are 27 bytes")
        #expect(save("") == 6001)
        let saved = reply(handler, "device.live_activity_token", device(id, ["live_activity_id": "order-1".json, "token": "cc".json]))
        #expect(saved["live_activity_id"] == "order-1".json)
        _ = reply(handler, "device.live_activity_token", device(id, ["live_activity_id": "order-1".json, "token": .null]))
        let tokens = reply(handler, "device.get", device(id))["device"]?["live_activity_tokens"]
        #expect(tokens?["order-1"] == nil)
        #expect(tokens?[String(repeating: "订", count: 8)] == "aa".json)
    }

    // MARK: device.delete

    @Test func deleteForgetsTheDeviceAndAnnouncesIt() throws {
        let id = register(deviceID: "install-9")["registration_id"]?.string ?? ""
        _ = reply(handler, "device.live_activity_token", device(id, ["live_activity_id": "a".json, "token": "aa".json]))
        _ = handler.storage.outbox.takeCommitted()
        #expect(reply(handler, "device.delete", device(id, app: "app2")).code == 1008)
        #expect(reply(handler, "device.delete", device(id)).code == 0)
        #expect(reply(handler, "device.get", device(id)).code == 6017)
        #expect(reply(handler, "device.delete", device(id)).code == 6017)
        let events = handler.storage.outbox.takeCommitted()
        #expect(events.map(\.topic) == ["device.deleted"])
        let leftovers = try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM live_activity_tokens").int }
        #expect(leftovers == 0)
        #expect(register(deviceID: "install-9")["registration_id"]?.string != id, "a deleted install registers anew")
    }

    @Test func unknownCommandIsRefused() {
        #expect(reply(handler, "device.fly", [:]).code == 6017)
        #expect(reply(handler, "tags.add", [:]).code == 6017, "tags belong to another service")
    }
}
