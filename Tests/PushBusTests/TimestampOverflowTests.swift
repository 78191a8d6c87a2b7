import Credentials
import Foundation
import Schema
import Testing
@testable import GatewayKit

/// `abs(now - ts)` trapped for a `ts` far enough below zero: the check runs before the proof is
/// verified, so anyone who could reach the request port stopped the gateway with one message.
/// Each check runs in a process of its own, so a trap fails the test instead of the test run.
@Suite("timestamps far out of range")
struct TimestampOverflowTests {
    @Test func aTimeIsWithinAWindowForAnyTwoValues() {
        #expect(Int64(1000).isWithin(300, of: 1300) && Int64(1600).isWithin(300, of: 1300))
        #expect(!Int64(999).isWithin(300, of: 1300) && !Int64(1601).isWithin(300, of: 1300))
        #expect(!Int64.min.isWithin(300, of: 1_800_000_000) && !Int64.max.isWithin(300, of: -1))
        #expect(!Int64.min.isWithin(Int64.max, of: 1) && Int64.min.isWithin(0, of: Int64.min))
    }

    @Test func aTsOfInt64MinIsRefusedNotATrap() async {
        await #expect(processExitsWith: .success) {
            let secrets = Secrets(admin: String(repeating: "a", count: 64), serverKey: String(repeating: "5", count: 64))
            var authenticator = Authenticator(secrets: secrets)
            let payload = Data(#"{"app_key":"ak","ts":-9223372036854775808}"#.utf8)
            // What the broker reads of it: the scanner takes Int64.min as is.
            guard let claims = PayloadKeys.scan(payload), claims.ts == Int64.min else { exit(3) }
            // Any well-formed proof frame: the signature is never looked at.
            let frame = Data(("v1 admin " + String(repeating: "0", count: 64)).utf8)
            let result = authenticator.check(command: "tags.list", known: Command(rawValue: "tags.list"),
                                             body: [Data("tags.list".utf8), payload, frame], claims: claims,
                                             now: Int64(Date().timeIntervalSince1970))
            guard case .failure = result else { exit(4) }
            exit(0)
        }
    }

    /// The same subtraction in a worker's READY: the stamp's ts is read before the proof is checked.
    @Test func aWorkerStampOfInt64MinIsRefusedNotATrap() async {
        await #expect(processExitsWith: .success) {
            let secrets = Secrets(admin: String(repeating: "a", count: 64), serverKey: String(repeating: "5", count: 64))
            let credential = WorkerCredential(stamp: Data("-9223372036854775808 c".utf8),
                                              proof: Data(("v1 service:tagging " + String(repeating: "0", count: 64)).utf8))
            guard case .failure = credential.verify(service: "tagging", credit: 1, secrets: secrets,
                                                    now: Int64(Date().timeIntervalSince1970), window: 300) else { exit(4) }
            exit(0)
        }
    }
}
