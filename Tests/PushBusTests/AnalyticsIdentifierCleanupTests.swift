import JSON
import Schema
import Testing
@testable import AnalyticsKit

/// The MA seed's cleanup of `MTMAUserID`, rule by rule, without a database.
@Suite("analytics identifier cleanup")
struct AnalyticsIdentifierCleanupTests {
    func clean(_ value: JSONValue?, _ kind: IdentifierKind = .userID) -> IdentifierCleanup.Outcome {
        IdentifierCleanup.clean(value, as: kind)
    }

    @Test func leadingAndTrailingSpacesAreTrimmed() {
        #expect(clean(.string("  member_10001 ")) == .valid("member_10001"))
        #expect(clean(.string("\tanon-1\n"), .anonymousID) == .valid("anon-1"))
        #expect(clean(.string(" +8613800000000 "), .phone) == .valid("+8613800000000"))
    }

    @Test func emptyAndPlaceholderValuesAreOmittedWithoutAResult() {
        for value in ["", "   ", "0", "null", "NULL", "Null", "undefined", "UNDEFINED", "nan", "NaN", " nan "] {
            for kind in IdentifierKind.allCases {
                #expect(clean(.string(value), kind) == .omitted, "\(kind) \(value)")
            }
        }
        #expect(clean(nil) == .omitted, "absent")
        #expect(clean(.null) == .omitted, "JSON null")
        #expect(clean(.string("00")) == .valid("00"), "only the exact placeholder 0 is omitted")
    }

    @Test func aValueThatIsNotAStringIs3013() {
        for value: JSONValue in [.number(10001), .number(0), .bool(true), .array([.string("a")]), .object(["a": .string("b")])] {
            #expect(clean(value) == .rejected(IdentifierCleanup.notAString), "\(value)")
            #expect(IdentifierCleanup.notAString.code == .maFieldInvalid)
        }
    }

    @Test func overlengthValuesAre3003PerKind() {
        let local = String(repeating: "l", count: 64)
        let domain = [61, 61, 61].map { String(repeating: "d", count: $0) }.joined(separator: ".") + ".com"
        let limits: [(IdentifierKind, String, String)] = [
            (.userID, String(repeating: "u", count: 128), String(repeating: "u", count: 129)),
            (.anonymousID, String(repeating: "a", count: 128), String(repeating: "a", count: 129)),
            (.email, "\(local)@\(domain)", "\(local)@d\(domain)"),
            (.phone, "+" + String(repeating: "1", count: 15), "+" + String(repeating: "1", count: 16)),
        ]
        #expect("\(local)@\(domain)".count == 254)
        for (kind, longest, tooLong) in limits {
            #expect(clean(.string(longest), kind) == .valid(longest), "\(kind) at its limit")
            #expect(clean(.string(tooLong), kind) == .rejected(IdentifierCleanup.tooLong), "\(kind) over its limit")
        }
        #expect(IdentifierCleanup.tooLong == MAFieldResult(code: .maFieldTooLong, msg: "User identifier value exceeds the length limit"))
        #expect(clean(.string(String(repeating: "用", count: 128))) == .valid(String(repeating: "用", count: 128)),
                "lengths count characters, not bytes")
    }

    @Test func badFormatsAre3013() {
        let bad = IdentifierCleanup.Outcome.rejected(IdentifierCleanup.badFormat)
        #expect(IdentifierCleanup.badFormat.code == .maFieldInvalid)
        for email in ["member", "a@b", "@example.com", "a@@example.com", "a b@example.com", "a@exa mple.com", "a@example..com", "a@.com"] {
            #expect(clean(.string(email), .email) == bad, "\(email)")
        }
        for phone in ["8613800000000", "+86 138", "+86-13800000000", "+123", "+", "phone"] {
            #expect(clean(.string(phone), .phone) == bad, "\(phone)")
        }
        #expect(clean(.string("member\n10001"), .userID) == bad, "a control character inside")
        #expect(clean(.string("anon\u{7}"), .anonymousID) == bad)
    }

    @Test func emailIsLowerCasedAndOthersKeptAsGiven() {
        #expect(clean(.string(" Member_10001@Example.COM "), .email) == .valid("member_10001@example.com"))
        #expect(clean(.string("Member_10001"), .userID) == .valid("Member_10001"))
        #expect(clean(.string("+8613800000000"), .phone) == .valid("+8613800000000"))
    }

    @Test func lengthIsCheckedBeforeFormat() {
        #expect(clean(.string("+" + String(repeating: "x", count: 20)), .phone) == .rejected(IdentifierCleanup.tooLong))
    }

    @Test func aWholeUserIDSortsEveryField() {
        let cleaned = IdentifierCleanup.clean(MAUserID(userID: .string(" member_10001 "), anonymousID: .string("undefined"),
                                                       email: .number(5), phone: .string("+86138000000001234")))
        #expect(cleaned.valid == [.userID: "member_10001"])
        #expect(cleaned.rejected == [.email: IdentifierCleanup.notAString, .phone: IdentifierCleanup.tooLong])
        #expect(IdentifierCleanup.clean(nil) == CleanIdentifiers())
    }
}
