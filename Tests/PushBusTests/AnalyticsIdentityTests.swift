import Foundation
import JSON
import Schema
import Testing
@testable import AnalyticsKit

/// `ma.start` and `ma.identify`: EUIDs, per-field results and the merge rule, on a temporary database.
@Suite("analytics identities")
struct AnalyticsIdentityTests {
    let ma: AnalyticsHarness

    init() throws { ma = try AnalyticsHarness() }

    func identify(_ euid: String, _ fields: String) -> JSONValue { ma.ma("ma.identify", euid, fields) }

    // MARK: ma.start

    @Test func anInstallKeepsItsEUIDAcrossRestarts() throws {
        let euid = ma.start("iphone-1")
        #expect(euid.count == 24 && euid.allSatisfy(\.isHexDigit), "96 random bits as hex")
        #expect(ma.start("iphone-1") == euid)
        #expect(ma.start("iphone-2") != euid)
        #expect(ma.start("iphone-1", app: "app2") != euid, "EUIDs belong to one app")
        let restarted = try ma.reopened()
        let again = reply(restarted, "ma.start", ["app_key": "app1".json, "device_id": "iphone-1".json])
        #expect(again["euid"] == euid.json)
    }

    @Test func startChecksItsFields() {
        #expect(ma.call("ma.start", #"{"device_id":"i"}"#).code == 1005)
        #expect(ma.call("ma.start", #"{"app_key":"bad key!","device_id":"i"}"#).code == 1008)
        #expect(ma.call("ma.start", #"{"app_key":"app1"}"#).code == 6001)
        #expect(ma.call("ma.start", #"{"app_key":"app1","device_id":""}"#).code == 6001)
        #expect(ma.call("ma.start", #"{"app_key":"app1","device_id":5}"#).code == 6017)
        #expect(ma.call("ma.start", "{\"app_key\":\"app1\",\"device_id\":\"\(String(repeating: "d", count: 129))\"}").code == 6017)
    }

    @Test func startWithAKnownUserGivesThatUsersEUID() {
        let first = ma.start("iphone-1", user: #"{"user_id":"member_10001"}"#)
        #expect(ma.start("ipad-1", user: #"{"user_id":" member_10001 "}"#) == first, "trimmed, then matched")
        #expect(ma.start("ipad-1") == first, "the install now follows that user")
        #expect(ma.start("ipad-2", user: #"{"user_id":"null","email":"bad"}"#) != first,
                "no valid identifier left: the install's own EUID")
    }

    // MARK: ma.identify: cleanup and results

    @Test func perFieldResultsTravelInMessageAsTheSeedShows() {
        let euid = ma.start()
        let result = identify(euid, #"{"email":"member_10001@example.com","phone":"+86138000000001234567"}"#)
        #expect(result.code == 0)
        #expect(result["euid"] == euid.json)
        #expect(result["message"]?.string ==
                #"{"email":{"code":0},"phone":{"code":3003,"msg":"User identifier value exceeds the length limit"}}"#)
    }

    @Test func omittedFieldsGetNoResultAndRejectedOnesTheirCode() {
        let euid = ma.start()
        let result = identify(euid, #"{"user_id":" member_10001 ","anonymous_id":"undefined","email":7,"phone":"13800000000"}"#)
        #expect(result.code == 0)
        #expect(ma.fieldResults(result) == json("""
            {"user_id":{"code":0},
             "email":{"code":3013,"msg":"User identifier value is not a string"},
             "phone":{"code":3013,"msg":"User identifier value has an invalid format"}}
            """))
        #expect(ma.profile(euid)["identities"] == json(#"{"user_id":"member_10001"}"#))
    }

    @Test func noValidIdentifierLeftIsMinus3() {
        let euid = ma.start()
        let nothing = identify(euid, #"{"user_id":"","anonymous_id":"NaN","email":null,"phone":"  "}"#)
        #expect(nothing.code == -3)
        #expect(nothing["message"]?.string?.isEmpty == false)
        let allRejected = identify(euid, #"{"user_id":12,"email":"member"}"#)
        #expect(allRejected.code == -3)
        #expect(ma.fieldResults(allRejected) == json("""
            {"user_id":{"code":3013,"msg":"User identifier value is not a string"},
             "email":{"code":3013,"msg":"User identifier value has an invalid format"}}
            """), "the rejections are still listed")
        #expect(identify(euid, "{}").code == -3)
        #expect(ma.profile(euid)["identities"] == json("{}"), "nothing was bound")
    }

    @Test func emailIsLowerCasedOnTheServer() {
        let euid = ma.start()
        #expect(identify(euid, #"{"email":"Member_10001@Example.com"}"#).code == 0)
        #expect(ma.profile(euid)["identities"]?["email"] == "member_10001@example.com".json)
        #expect(identify(ma.start("other"), #"{"email":"MEMBER_10001@example.COM"}"#)["euid"] == euid.json,
                "the same address in other case finds the same user")
    }

    @Test func identifyChecksAppAndEUID() {
        let euid = ma.start()
        #expect(ma.call("ma.identify", #"{"euid":"x","user_id":"u"}"#).code == 1005)
        #expect(ma.call("ma.identify", #"{"app_key":"app1","user_id":"u"}"#).code == 6001)
        #expect(ma.call("ma.identify", #"{"app_key":"app1","euid":"no such!","user_id":"u"}"#).code == 6017)
        #expect(ma.call("ma.identify", #"{"app_key":"app1","euid":"0123456789abcdef01234567","user_id":"u"}"#).code == -2,
                "an EUID the server never issued: start was not called")
        #expect(ma.call("ma.identify", "{\"app_key\":\"app2\",\"euid\":\"\(euid)\",\"user_id\":\"u\"}").code == -2,
                "an EUID of another app")
    }

    // MARK: the merge rule

    @Test func anAnonymousUserWhoSignsInKeepsTheEUID() {
        let euid = ma.start()
        let result = identify(euid, #"{"user_id":"member_10001","anonymous_id":"anonymous_10001"}"#)
        #expect(result["euid"] == euid.json)
        #expect(ma.profile(euid)["identities"] == json(#"{"user_id":"member_10001","anonymous_id":"anonymous_10001"}"#))
    }

    @Test func aKnownUserOnANewDeviceMergesTheDevicesAnonymousEUID() {
        let phone = ma.start("iphone-1")
        #expect(identify(phone, #"{"user_id":"member_10001"}"#).code == 0)
        #expect(ma.property(phone, #"{"op":"set","properties":{"level":"gold","city":"Singapore"}}"#).code == 0)

        let tablet = ma.start("ipad-1")
        #expect(ma.property(tablet, #"{"op":"set","properties":{"level":"silver","theme":"dark"}}"#).code == 0)
        #expect(ma.ma("ma.contact", tablet, #"{"contacts":{"whatsapp_phone":"+6590000000"}}"#).code == 0)
        #expect(ma.ma("ma.events", tablet, #"{"events":[{"name":"browse","time":"2025-03-01T10:00:00Z"}]}"#)["accepted"] == .number(1))

        let result = identify(tablet, #"{"user_id":"member_10001","anonymous_id":"tablet-anon"}"#)
        #expect(result["euid"] == phone.json, "the identified user's EUID")
        #expect(ma.fieldResults(result) == json(#"{"user_id":{"code":0},"anonymous_id":{"code":0}}"#))
        #expect(ma.properties(phone) == json(#"{"level":"gold","city":"Singapore","theme":"dark"}"#),
                "the identified user's values win; the anonymous one's others move over")
        #expect(ma.profile(phone)["contacts"] == json(#"{"whatsapp_phone":"+6590000000"}"#))
        #expect(ma.profile(phone)["identities"] == json(#"{"user_id":"member_10001","anonymous_id":"tablet-anon"}"#))
        #expect(ma.profile(tablet)["euid"] == phone.json, "the merged EUID forwards to the survivor")
        #expect(ma.ma("ma.events", tablet, #"{"events":[{"name":"late"}]}"#)["accepted"] == .number(1),
                "an SDK still holding the merged EUID keeps working")
        #expect(ma.start("ipad-1") == phone, "the tablet's install follows the merge")
        let moved = try? ma.handler.storage.store.read { db in
            try db.value("SELECT COUNT(*) FROM events WHERE euid = ?", phone).int
        }
        #expect(moved == 2, "events move with the merge")
    }

    @Test func anotherUserSigningInGetsANewEUIDAndTheFirstIsNotMerged() {
        let euid = ma.start("shared-ipad")
        #expect(identify(euid, #"{"user_id":"alice","email":"alice@example.com"}"#).code == 0)
        let bob = identify(euid, #"{"user_id":"bob","device_id":"shared-ipad"}"#)
        let bobEUID = bob["euid"]?.string ?? ""
        #expect(!bobEUID.isEmpty && bobEUID != euid)
        #expect(ma.profile(euid)["identities"] == json(#"{"user_id":"alice","email":"alice@example.com"}"#),
                "an identified user is never overwritten")
        #expect(ma.start("shared-ipad") == bobEUID, "device_id makes the install follow the new user")
        #expect(identify(bobEUID, #"{"user_id":"alice"}"#)["euid"] == euid.json, "signing back in finds alice")
        #expect(ma.profile(bobEUID)["identities"] == json(#"{"user_id":"bob"}"#), "bob is not merged into alice")
    }

    @Test func anIdentifierOfAnotherIdentifiedUserStaysWithItAndGetsMinus1() {
        let alice = ma.start("a")
        #expect(identify(alice, #"{"user_id":"alice","email":"shared@example.com"}"#).code == 0)
        let bob = ma.start("b")
        let result = identify(bob, #"{"user_id":"bob","email":"shared@example.com","phone":"+6591234567"}"#)
        #expect(result["euid"] == bob.json)
        #expect(ma.fieldResults(result) == json("""
            {"user_id":{"code":0},"phone":{"code":0},
             "email":{"code":-1,"msg":"User identifier belongs to another identified user"}}
            """))
        #expect(ma.profile(alice)["identities"]?["email"] == "shared@example.com".json)
        #expect(ma.profile(bob)["identities"] == json(#"{"user_id":"bob","phone":"+6591234567"}"#))

        let signedIn = identify(bob, #"{"email":"shared@example.com"}"#)
        #expect(signedIn["euid"] == bob.json, "an identified current user stays itself without a user_id")
        #expect(ma.fieldResults(signedIn)?["email"]?["code"] == .number(-1))
    }

    @Test func anAnonymousUserGivingAKnownEmailBecomesThatUser() {
        let alice = ma.start("a")
        #expect(identify(alice, #"{"user_id":"alice","email":"alice@example.com"}"#).code == 0)
        let visitor = ma.start("web-1")
        let result = identify(visitor, #"{"email":"Alice@Example.com","anonymous_id":"visitor-1"}"#)
        #expect(result["euid"] == alice.json, "email and phone match identities and may return another EUID")
        #expect(ma.profile(alice)["identities"]?["anonymous_id"] == "visitor-1".json)
        #expect(ma.profile(visitor)["euid"] == alice.json)
    }

    @Test func twoAnonymousUsersMeetingBecomeOne() {
        let first = ma.start("a")
        #expect(identify(first, #"{"anonymous_id":"cookie-1"}"#).code == 0)
        let second = ma.start("b")
        #expect(ma.property(second, #"{"op":"set","key":"theme","value":"dark"}"#).code == 0)
        let result = identify(second, #"{"anonymous_id":"cookie-1","phone":"+6590000001"}"#)
        #expect(result["euid"] == first.json, "the holder of the identifier absorbs the current anonymous EUID")
        #expect(ma.properties(first) == json(#"{"theme":"dark"}"#))
        #expect(ma.profile(first)["identities"] == json(#"{"anonymous_id":"cookie-1","phone":"+6590000001"}"#))
    }

    @Test func aNewValueOfAKindReplacesTheOldOne() {
        let euid = ma.start()
        #expect(identify(euid, #"{"user_id":"u1","email":"old@example.com"}"#).code == 0)
        #expect(identify(euid, #"{"email":"new@example.com"}"#)["euid"] == euid.json)
        #expect(ma.profile(euid)["identities"] == json(#"{"user_id":"u1","email":"new@example.com"}"#))
        let other = ma.start("other")
        #expect(identify(other, #"{"email":"old@example.com"}"#)["euid"] == other.json, "the old address was released")
    }
}
