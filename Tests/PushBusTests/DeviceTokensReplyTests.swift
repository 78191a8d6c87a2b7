import Foundation
import Schema
import Testing

/// `device.tokens`' reply, read from its tree (the fan-out's hottest decode): the same values and
/// the same refusals as the keyed decoder gave.
@Suite("device.tokens reply")
struct DeviceTokensReplyTests {
    func decode(_ text: String) throws -> DeviceTokensReply {
        try WireCodec.decode(Reply<DeviceTokensReply>.self, from: Data(text.utf8)).body ?? DeviceTokensReply(devices: [:])
    }

    @Test("every field, nulls as absent, unknown keys ignored, the first of a key")
    func readsEveryField() throws {
        let reply = try decode(#"""
            {"code":0,"devices":{"r1":{"apns_token":"aa","apns_production":true,"voip_token":null,"live_activity_token":"bb","authorization":"denied","later":1},
             "r2":{"apns_production":false,"apns_token":"cc","apns_token":"dd"}}}
            """#)
        #expect(reply.devices == [
            "r1": DeviceTokens(apnsToken: "aa", apnsProduction: true, voipToken: nil, liveActivityToken: "bb", authorization: "denied"),
            "r2": DeviceTokens(apnsToken: "cc", apnsProduction: false),
        ])
        #expect(try decode(#"{"code":0,"devices":{}}"#).devices.isEmpty)
    }

    @Test("a field of the wrong type, a missing apns_production, devices not an object: refused with the decoder's codes")
    func refusesWhatDecodingRefused() {
        for (text, code) in [(#"{"code":0,"devices":{"r1":{"apns_production":"yes"}}}"#, 6017),
                             (#"{"code":0,"devices":{"r1":{"apns_token":7,"apns_production":true}}}"#, 6017),
                             (#"{"code":0,"devices":{"r1":{"apns_token":"aa"}}}"#, 6001),
                             (#"{"code":0,"devices":[1]}"#, 6017),
                             (#"{"code":0,"devices":{"r1":5}}"#, 6017)] {
            do {
                _ = try decode(text)
                Issue.record("accepted \(text)")
            } catch let error as CommandError {
                #expect(Int(error.code.rawValue) == code, "\(text): \(error)")
            } catch {
                Issue.record("\(text): \(error)")
            }
        }
    }

    @Test("what registration writes reads back the same")
    func roundTrips() throws {
        let reply = DeviceTokensReply(devices: ["r1": DeviceTokens(apnsToken: "aa", apnsProduction: true, authorization: "granted"),
                                                "r2": DeviceTokens(apnsToken: nil, apnsProduction: false, voipToken: "ee")])
        let text = String(decoding: WireCodec.encode(Reply(reply)), as: UTF8.self)
        #expect(try decode(text) == reply)
    }
}
