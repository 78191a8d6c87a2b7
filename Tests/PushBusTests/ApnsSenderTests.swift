import Credentials
import Foundation
import HTTP2Client
import Schema
import Synchronization
import Testing
@testable import ApnsKit

/// What the sender makes of APNs' answers and what it refuses to put in a header.
@Suite("APNs sender")
struct ApnsSenderTests {
    @Test("retry-after and timestamp are taken only when finite and not negative")
    func oddAnswers() {
        func result(_ headers: [String: String], _ body: String) -> ApnsResult {
            ApnsSender.result("1:a", HTTP2Response(status: 429, headers: headers, body: Data(body.utf8)))
        }
        #expect(result(["retry-after": "nan"], #"{"reason":"TooManyRequests"}"#).retryAfter == nil)
        #expect(result(["retry-after": "1e309"], "{}").retryAfter == nil)
        #expect(result(["retry-after": "-5"], "{}").retryAfter == nil)
        #expect(result(["retry-after": "7"], "{}").retryAfter == 7)
        #expect(result(["retry-after": "99999"], "{}").retryAfter == 3600, "at most an hour")
        #expect(result([:], #"{"reason":"Unregistered","timestamp":-1e300}"#).timestamp == nil)
        #expect(result([:], "garbage").reason == nil)
        // The reply that carries them must encode: a NaN would make it unanswerable.
        let sent = ApnsSent(results: [result(["retry-after": "nan"], "{}")])
        #expect(String(decoding: WireCodec.encode(sent), as: UTF8.self).contains("1:a"))
    }

    @Test("an apns-id in a UUID's canonical text is read as Foundation reads it; any other text is none")
    func recentIDs() throws {
        var random = SystemRandomNumberGenerator()
        let pieces = Array("0123456789abcdefABCDEF-g ".utf8)
        let canonical = try Regex("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
        for _ in 0..<2000 {
            let uuid = UUID()
            var text = Array((Bool.random() ? uuid.uuidString : uuid.uuidString.lowercased()).utf8)
            if Bool.random() { text[Int.random(in: 0..<text.count, using: &random)] = pieces.randomElement(using: &random)! }
            if Int.random(in: 0..<8, using: &random) == 0 { text.removeLast(Int.random(in: 1...3, using: &random)) }
            let string = String(decoding: text, as: UTF8.self)
            let isCanonical = string.wholeMatch(of: canonical) != nil
            // Foundation (sscanf) also takes some texts that are not canonical ("2a3 7c2e-..."); those are no apns-id of ours.
            #expect((ApnsSender.RecentID(string) != nil) == isCanonical, "\(string)")
            if isCanonical, let foundation = UUID(uuidString: string) {
                #expect(ApnsSender.RecentID(string) == ApnsSender.RecentID(foundation.uuidString), "\(string)")
            }
        }
        #expect(ApnsSender.RecentID("2a3e7c2e-0c0e-4d3a-9f00-1b2c3d4e5f60") != ApnsSender.RecentID("2a3e7c2e-0c0e-4d3a-9f00-1b2c3d4e5f61"))
        #expect(ApnsSender.RecentID("2a3e7c2e-0c0e-4d3a-9f00-1b2c3d4e5f60") == ApnsSender.RecentID("2A3E7C2E-0C0E-4D3A-9F00-1B2C3D4E5F60"))
    }

    @Test("a batch's requests share a body only for payloads of the same bytes, not for two spellings of one text")
    func bodiesByBytes() {
        var bodies = ApnsSender.Bodies()
        let payloads = [#"{"aps":{"alert":"K"}}"#, #"{"aps":{"alert":"\#u{212A}"}}"#, #"{"aps":{"alert":"\#u{E9}"}}"#,
                        #"{"aps":{"alert":"e\#u{301}"}}"#, #"{"aps":{"alert":"e\#u{301}"}}"#]
        #expect(payloads[0] == payloads[1] && payloads[2] == payloads[3], "one text each to ==")
        for payload in payloads { #expect(bodies.body(payload) == Data(payload.utf8), "\(payload)") }
    }

    @Test("a header value that is not printable ASCII, or has a space at an end, is refused before anything is sent")
    func headerValues() throws {
        let handler = try ApnsHandler(settings: ApnsSettings())
        // The batch is checked before its key is ever read: the refusal can only be the header's.
        let key = ApnsKey(teamID: "TEAM123456", keyID: "KEY1234567", p8: "never read")
        for collapse in ["trail ", " lead", "   ", "a\r\nx: y", "caf\u{e9}"] {
            for apnsID in [nil, collapse] {
                let n = ApnsNotification(id: "1:a", token: "aa", production: false, topic: "com.example", pushType: "alert", priority: 10,
                                         expiration: nil, collapseID: apnsID == nil ? collapse : "ok", payload: "{}", apnsID: apnsID)
                #expect {
                    try handler.check(ApnsSend(credentials: key, notifications: [n]), by: .service(name: "push"))
                } throws: { ($0 as? CommandError)?.message.contains("header value") == true }
            }
        }
        // A value checked once for the batch stands only for the same bytes: a look-alike that
        // Swift's `==` takes for it (KELVIN SIGN for "K", U+037E for ";") is checked, and refused.
        for (good, alike) in [("com.example.K", "com.example.\u{212A}"), ("a;b", "a\u{37E}b")] {
            let first = ApnsNotification(id: "1:a", token: "aa", production: false, topic: good, pushType: "alert", priority: 10,
                                         expiration: nil, collapseID: good, payload: "{}")
            #expect(good == alike, "the two are one text to ==")
            for other in [ApnsNotification(id: "1:b", token: "bb", production: false, topic: alike, pushType: "alert", priority: 10,
                                           expiration: nil, collapseID: good, payload: "{}"),
                          ApnsNotification(id: "1:b", token: "bb", production: false, topic: good, pushType: "alert", priority: 10,
                                           expiration: nil, collapseID: alike, payload: "{}")] {
                #expect {
                    try handler.check(ApnsSend(credentials: key, notifications: [first, other]), by: .service(name: "push"))
                } throws: { ($0 as? CommandError)?.message.contains("header value") == true }
            }
        }
        let fine = ApnsNotification(id: "1:a", token: "aa", production: false, topic: "com.example", pushType: "alert", priority: 10,
                                    expiration: nil, collapseID: "ok", payload: "{}", apnsID: "2a3e7c2e-0c0e-4d3a-9f00-1b2c3d4e5f60")
        #expect(try handler.check(ApnsSend(credentials: key, notifications: [fine]), by: .service(name: "push")).1 == [fine])
        #expect {
            try handler.check(ApnsSend(credentials: key, notifications: [fine]), by: .app(appKey: "a"))
        } throws: { ($0 as? CommandError)?.message.contains("only its services") == true }
    }

    @Test("a failure maps to status 0: NotSent when it never reached APNs, Lost when APNs may have it")
    func failures() {
        #expect(ApnsSender.result("1:a", .failed(.notSent("refused"))) == ApnsResult(id: "1:a", status: 0, reason: "NotSent"))
        #expect(ApnsSender.result("1:a", .failed(.lost("PING unanswered"))) == ApnsResult(id: "1:a", status: 0, reason: "Lost"))
    }

    @Test("an answer slower than --apns-timeout is waited for while its stream is open on a live connection")
    func slowAnswerIsWaitedFor() throws {
        let apns = try ApnsStandIn()
        try apns.delay(3)
        var settings = ApnsSettings()
        settings.productionURL = apns.url
        settings.caFile = apns.caFile
        settings.requestTimeoutSeconds = 1
        let sender = try ApnsSender(settings: settings)
        defer { sender.stop() }
        let n = ApnsNotification(id: "1:a", token: "00aa", production: true, topic: ApnsStandIn.bundleID, pushType: "alert", priority: 10,
                                 expiration: nil, collapseID: nil, payload: #"{"aps":{"alert":"slow"}}"#)
        let started = Date()
        let answered = DispatchSemaphore(value: 0)
        let results = Mutex<[ApnsResult]>([])
        try sender.send([n], key: ApnsKey(teamID: ApnsStandIn.teamID, keyID: ApnsStandIn.keyID, p8: apns.p8), lane: "app") { got in
            results.withLock { $0 = got }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 30) == .success)
        #expect(results.withLock { $0 } == [ApnsResult(id: "1:a", status: 200)])
        #expect(Date().timeIntervalSince(started) >= 3)
        #expect(try apns.count() == (1, 1), "sent once")
    }
}

