import Foundation
import JSON
@testable import AnalyticsKit
import Testing

/// Analytics reads what every followed event carries (time, app, device) in place: as the decoder
/// reads it, whatever else the event holds.
@Suite struct AnalyticsFactTests {
    @Test func aFactReadsAsItDecodes() throws {
        let documents = [
            #"{"app_key":"a","registration_id":"r","identifier":"i","content":{"title":"t","user_info":{"k":[1,{"x":null}]}},"fired_at":"f","publisher":"scheduler","seq":1,"time":"2026-12-06T00:00:00Z"}"#,
            #"{"app_key":"a","publisher":"registration","seq":2,"time":"t","platform":"ios"}"#,
            #"{"app_key":"a\u00e9","registration_id":"r\"q","time":"t"}"#,
            #"{"app_key":"a","registration_id":null,"time":"t","app_key":"second"}"#,
        ]
        for text in documents {
            let data = Data(text.utf8)
            let read = try FieldReader.decode(AnalyticsHandler.Fact.self, from: data)
            let decoded = try JSONTreeDecoder().decode(AnalyticsHandler.Fact.self, from: data)
            #expect(read == decoded, "\(text)")
        }
        #expect(throws: (any Error).self) { try FieldReader.decode(AnalyticsHandler.Fact.self, from: Data(#"{"app_key":"a"}"#.utf8)) }
        #expect(throws: (any Error).self) { try FieldReader.decode(AnalyticsHandler.Fact.self, from: Data(#"{"app_key":1,"time":"t"}"#.utf8)) }
    }
}
