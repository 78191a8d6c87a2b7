import Foundation
import JSON
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

    @Test("written by its own fields as the encoder writes it (keys in byte order, odd characters), 300 random replies")
    func writesAsEncoded() throws {
        var random = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", "0", "\"", "\\", "\n", "é", "日本", "🎉", "-", "\u{7F}"]
        func text() -> String { (0..<Int.random(in: 0...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() }
        func maybe(_ value: String) -> String? { Bool.random(using: &random) ? value : nil }
        for _ in 0..<300 {
            var devices: [String: DeviceTokens] = [:]
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                devices[text()] = DeviceTokens(apnsToken: maybe(text()), apnsProduction: .random(using: &random), voipToken: maybe(text()),
                                               liveActivityToken: maybe(text()), authorization: maybe(text()))
            }
            let reply = DeviceTokensReply(devices: devices)
            #expect(WireCodec.encode(reply) == (try JSONTreeEncoder().encode(reply)))
            #expect(try decode(String(decoding: WireCodec.successReply(reply), as: UTF8.self)) == reply)
        }
    }

    @Test("apns.send and its answer read back as written, random values, 200 rounds; wrong types and missing fields refused with the decoder's codes")
    func apnsBatchesReadAsWritten() throws {
        var random = TestRandom()
        func text() -> String { FieldCodingTests.text(&random) }
        for _ in 0..<200 {
            let notifications = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                ApnsNotification(id: text(), token: text(), production: .random(using: &random), topic: text(), pushType: text(),
                                 priority: Int.random(in: -5...10, using: &random),
                                 expiration: Bool.random(using: &random) ? Int.random(in: 0...2_000_000_000, using: &random) : nil,
                                 collapseID: Bool.random(using: &random) ? text() : nil, payload: text(),
                                 apnsID: Bool.random(using: &random) ? text() : nil)
            }
            let send = ApnsSend(appKey: Bool.random(using: &random) ? text() : nil,
                                credentials: ApnsKey(teamID: text(), keyID: text(), p8: "-----BEGIN PRIVATE KEY-----\n" + text()),
                                notifications: Bool.random(using: &random) ? notifications : nil)
            #expect(try WireCodec.decode(ApnsSend.self, from: WireCodec.encode(send)) == send)
            let sent = ApnsSent(results: (0..<Int.random(in: 0...4, using: &random)).map { _ in
                ApnsResult(id: text(), status: Int.random(in: 0...600, using: &random), reason: Bool.random(using: &random) ? text() : nil,
                           timestamp: Bool.random(using: &random) ? Double(Int.random(in: 0...2_000_000_000_000, using: &random)) : nil,
                           retryAfter: Bool.random(using: &random) ? Double.random(in: 0...100, using: &random) : nil)
            })
            #expect(try WireCodec.decode(ApnsSent.self, from: WireCodec.encode(sent)) == sent)
        }
        let good = #"{"id":"d1","token":"aa","production":true,"topic":"t","push_type":"alert","priority":10,"payload":"{}"}"#
        for (text, code) in [(#"{"notifications":[\#(good)]}"#, 0),
                             (#"{"notifications":[\#(good.replacingOccurrences(of: "\"priority\":10", with: "\"priority\":\"10\""))]}"#, 6017),
                             (#"{"notifications":[\#(good.replacingOccurrences(of: "\"token\":\"aa\",", with: ""))]}"#, 6001),
                             (#"{"notifications":{"a":1}}"#, 6017),
                             (#"{"notifications":[7]}"#, 6017)] {
            do {
                _ = try WireCodec.decode(ApnsSend.self, from: Data(text.utf8))
                #expect(code == 0, "accepted \(text)")
            } catch {
                #expect(Int(error.code.rawValue) == code, "\(text): \(error)")
            }
        }
    }
}
