import Foundation
import JSON
import Schema
import Testing
@testable import AnalyticsKit

/// `ma.contact`, `ma.channel_value` and `ma.profile` on a temporary database.
@Suite("analytics contacts, channel values and profile")
struct AnalyticsProfileTests {
    let ma: AnalyticsHarness
    var euid: String { ma.euid }

    init() throws { ma = try AnalyticsHarness() }

    func contact(_ contacts: String) -> JSONValue { ma.ma("ma.contact", euid, "{\"contacts\":\(contacts)}") }
    var contacts: JSONValue? { ma.profile(euid)["contacts"] }

    // MARK: ma.contact

    @Test func theFourKindsAreSetAndAbsentOnesKept() {
        #expect(contact(#"{"mobile_phone":"13800000000"}"#).code == 0)
        #expect(contact(#"{"email":"a@example.com","landline_phone":"010-1234","whatsapp_phone":"+6590000000"}"#).code == 0)
        #expect(contacts == json(#"{"mobile_phone":"13800000000","email":"a@example.com","landline_phone":"010-1234","whatsapp_phone":"+6590000000"}"#))
        #expect(contact(#"{"email":null,"mobile_phone":"13900000000"}"#).code == 0, "null leaves a contact unchanged")
        #expect(contacts?["email"] == "a@example.com".json)
        #expect(contacts?["mobile_phone"] == "13900000000".json)
    }

    @Test func anEmptyStringClearsAContact() {
        #expect(contact(#"{"email":"a@example.com","mobile_phone":"13800000000"}"#).code == 0)
        #expect(contact(#"{"email":""}"#).code == 0)
        #expect(contacts == json(#"{"mobile_phone":"13800000000"}"#))
    }

    @Test func whitespaceOnlyIsInvalidAndNothingChanges() {
        #expect(contact(#"{"email":"a@example.com"}"#).code == 0)
        #expect(contact(#"{"email":"b@example.com","mobile_phone":"   "}"#).code == 6017)
        #expect(contact(#"{"whatsapp_phone":"\t\n"}"#).code == 6017)
        #expect(contacts == json(#"{"email":"a@example.com"}"#))
    }

    @Test func contactRequestsAreChecked() {
        #expect(contact(#"{"fax":"123"}"#).code == 6017, "an unknown kind")
        #expect(contact(#"{"email":5}"#).code == 6017)
        #expect(contact("{\"email\":\"\(String(repeating: "e", count: 257))\"}").code == 6017)
        #expect(contact("{\"email\":\"\(String(repeating: "e", count: 256))\"}").code == 0, "1..256 characters")
        #expect(contact("{}").code == 6001)
        #expect(contact(#"{"email":null}"#).code == 6001, "nothing to change")
        #expect(ma.ma("ma.contact", euid).code == 6001, "contacts missing")
        #expect(ma.ma("ma.contact", "0123456789abcdef01234567", #"{"contacts":{"email":"a@b.co"}}"#).code == -2)
    }

    // MARK: ma.channel_value

    @Test func channelValuesAreTrimmedAndReplaced() {
        #expect(ma.ma("ma.channel_value", euid, #"{"channel_id":136,"values":["  third-party Push RID or Token  "]}"#).code == 0)
        #expect(ma.ma("ma.channel_value", euid, #"{"channel_id":7,"values":["t1","t2","t1"]}"#).code == 0)
        #expect(ma.profile(euid)["channels"] == json(#"{"136":["third-party Push RID or Token"],"7":["t1","t2"]}"#))
        #expect(ma.ma("ma.channel_value", euid, #"{"channel_id":7,"values":["t3"]}"#).code == 0)
        #expect(ma.profile(euid)["channels"]?["7"] == json(#"["t3"]"#), "a new call replaces the channel's values")
    }

    @Test func channelValuesAreChecked() {
        let cases: [(String, Int)] = [
            (#"{"values":["t"]}"#, 6001),
            (#"{"channel_id":0,"values":["t"]}"#, 6017),
            (#"{"channel_id":-3,"values":["t"]}"#, 6017),
            (#"{"channel_id":"136","values":["t"]}"#, 6017),
            (#"{"channel_id":136}"#, 6001),
            (#"{"channel_id":136,"values":[]}"#, 6017),
            (#"{"channel_id":136,"values":["ok","   "]}"#, 6017),
            (#"{"channel_id":136,"values":[""]}"#, 6017),
            (#"{"channel_id":136,"values":[5]}"#, 6017),
        ]
        for (payload, code) in cases {
            #expect(ma.ma("ma.channel_value", euid, payload).code == code, "\(payload)")
        }
        #expect(ma.profile(euid)["channels"] == nil)
        #expect(ma.ma("ma.channel_value", "0123456789abcdef01234567", #"{"channel_id":1,"values":["t"]}"#).code == -2)
    }

    // MARK: ma.profile

    @Test func aProfileReadsEverythingBack() {
        #expect(ma.ma("ma.identify", euid, #"{"user_id":"member_10001","phone":"+8613800000000"}"#).code == 0)
        #expect(ma.property(euid, #"{"op":"set","properties":{"level":"gold"}}"#).code == 0)
        #expect(contact(#"{"email":"contact@example.com"}"#).code == 0)
        #expect(ma.profile(euid) == json("""
            {"code":0,"euid":"\(euid)","properties":{"level":"gold"},
             "identities":{"user_id":"member_10001","phone":"+8613800000000"},
             "contacts":{"email":"contact@example.com"}}
            """), "contact details and identifiers are kept apart")
        #expect(ma.profile("0123456789abcdef01234567").code == -2)
        #expect(ma.call("ma.profile", #"{"app_key":"app1"}"#).code == 6001)
    }
}
