import Foundation
import JSON
import Schema
import Testing

/// A stored plan is written by its own fields and read from its tree (`PushPlan+Fields`): the bytes
/// must be the Encoder's, a plan must read back as it was, and a damaged one must be refused with the
/// codes the synthesized decoder gave.
@Suite struct PushPlanCodingTests {
    /// Payloads with what the writer must treat as the Encoder does: unsorted and repeated keys,
    /// numbers in other spellings, escapes, nesting, null.
    static let payloads = [
        #"{"aps":{"alert":"Hi","badge":1},"_j_msgid":"1"}"#,
        #"{"z":1,"a":{"y":[1,2.50,-0.0,1e3],"b":null},"a":"second","m":"é\n\"\\/"}"#,
        #"{"aps":{"content-available":1},"big":12345678901234567890,"f":0.1,"t":true,"e":[]}"#,
        #"{}"#,
    ]

    static func plan<R: RandomNumberGenerator>(_ random: inout R) throws -> PushPlan {
        func maybe<T>(_ value: T) -> T? { FieldCodingTests.maybe(value, &random) }
        let payload = try WireCodec.decode(JSONValue.self, from: Data(Self.payloads.randomElement(using: &random)!.utf8), readsInPlace: false)
        let send = PushSend(appKey: "app", to: .object(["registration_id": .array([.string("r1")])]),
                            body: .object(["platform": .string("ios"), "notification": .object(["ios": .object(["alert": .string("x")])])]))
        var plan = try PushPlan(send, now: Date(timeIntervalSince1970: 1_700_000_000))
        plan.target = PushTarget.only([])
        plan.target.registrationIDs = maybe(FieldCodingTests.texts(&random))
        plan.target.aliases = maybe(FieldCodingTests.texts(&random))
        plan.target.tags = maybe(FieldCodingTests.texts(&random))
        plan.target.tagAnd = maybe(FieldCodingTests.texts(&random))
        plan.target.tagNot = maybe(FieldCodingTests.texts(&random))
        plan.target.liveActivityID = maybe(FieldCodingTests.text(&random))
        plan.content.kind = [PushKind.alert, .background, .voip, .liveActivity, .message, .inapp].randomElement(using: &random)!
        plan.content.payload = payload
        plan.content.badge = maybe(["5", "+1", "-2"].randomElement(using: &random)!)
        plan.content.pages = maybe(FieldCodingTests.texts(&random))
        plan.content.expiresAt = maybe([1_700_000_000, 1_700_000_000.25, 0.001, 1e16, -3].randomElement(using: &random)!)
        plan.options.timeToLive = maybe(Int.random(in: 0...PushOptions.maxTimeToLive, using: &random))
        plan.options.apnsProduction = maybe(Bool.random(using: &random))
        plan.options.collapseID = maybe(FieldCodingTests.text(&random))
        plan.options.bigPushDuration = Int.random(in: 0...PushOptions.maxBigPushDuration, using: &random)
        plan.options.cid = maybe(FieldCodingTests.text(&random))
        plan.options.notificationReminder = Bool.random(using: &random)
        return plan
    }

    @Test("a plan is written as the Encoder writes it, and reads back as it was")
    func roundTrips() throws {
        var random = TestRandom()
        for _ in 0..<300 {
            let plan = try Self.plan(&random)
            let written = WireCodec.encode(plan)
            let encoded = try JSONTreeEncoder().encode(plan)
            #expect(written == encoded, "\(String(decoding: written, as: UTF8.self)) vs \(String(decoding: encoded, as: UTF8.self))")
            #expect(try WireCodec.decode(PushPlan.self, from: written) == plan)
            #expect(try WireCodec.decode(PushPlan.self, from: written, readsInPlace: false) == plan, "through the tree decoder too")
        }
    }

    @Test("a damaged plan is refused with the decoder's codes: a wrong type 6017, a missing member 6001")
    func refusals() throws {
        var random = TestRandom()
        let plan = try Self.plan(&random)
        let good = try #require(try JSONSerialization.jsonObject(with: WireCodec.encode(plan)) as? [String: Any])
        func code(_ change: (inout [String: Any]) -> Void) -> Int? {
            var object = good
            change(&object)
            let data = try! JSONSerialization.data(withJSONObject: object)
            do { _ = try WireCodec.decode(PushPlan.self, from: data); return nil } catch { return error.code.rawValue }
        }
        func nested(_ key: String, _ change: @escaping (inout [String: Any]) -> Void) -> (inout [String: Any]) -> Void {
            { object in
                var inner = object[key] as? [String: Any] ?? [:]
                change(&inner)
                object[key] = inner
            }
        }
        #expect(code { $0["target"] = nil } == 6001)
        #expect(code { $0["content"] = NSNull() } == 6001)
        #expect(code { $0["options"] = "x" } == 6017)
        #expect(code(nested("target") { $0["tags"] = "vip" }) == 6017)
        #expect(code(nested("target") { $0["registrationIDs"] = ["r1", 2] }) == 6017)
        #expect(code(nested("content") { $0["kind"] = "fax" }) == 6017)
        #expect(code(nested("content") { $0["kind"] = nil }) == 6001)
        #expect(code(nested("content") { $0["payload"] = nil }) == 6001)
        #expect(code(nested("content") { $0["expiresAt"] = "soon" }) == 6017)
        #expect(code(nested("options") { $0["bigPushDuration"] = nil }) == 6001)
        #expect(code(nested("options") { $0["timeToLive"] = 1.5 }) == 6017)
        #expect(code(nested("options") { $0["notificationReminder"] = "yes" }) == 6017)
        #expect(code { _ in } == nil, "the plan unchanged reads")
    }
}
