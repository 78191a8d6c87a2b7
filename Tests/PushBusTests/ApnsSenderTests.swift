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

