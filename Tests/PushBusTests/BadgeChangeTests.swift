import Schema
import Testing
@testable import BadgeKit

@Suite("badge change")
struct BadgeChangeTests {
    @Test(arguments: [("0", BadgeChange.set(0)), ("99", .set(99)), ("7", .set(7)), ("07", .set(7)),
                      ("+0", .add(0)), ("+1", .add(1)), ("+99", .add(99)), ("-0", .add(0)), ("-1", .add(-1)),
                      ("-99", .add(-99))])
    func parsesTheThreeForms(_ text: String, _ expected: BadgeChange) throws {
        #expect(try BadgeChange(text) == expected)
    }

    @Test(arguments: ["100", "+100", "-100", "+", "-", "1.5", " 1", "1 ", "a", "++1", "+-1", "1e2", "٣", "+ 1", "005"])
    func refusesAnythingElseWith6017(_ text: String) {
        do { _ = try BadgeChange(text); Issue.record("accepted \(text)") } catch {
            #expect(error.code == .invalidRequest)
        }
    }

    @Test func missingOrEmptyIs6001() {
        for text in [nil, ""] as [String?] {
            do { _ = try BadgeChange(text); Issue.record("accepted \(String(describing: text))") } catch {
                #expect(error.code == .emptyRequest)
            }
        }
    }

    @Test func resultsAreClampedAtBothEnds() throws {
        #expect(try BadgeChange("+1").applied(to: 99_999) == 99_999)
        #expect(try BadgeChange("+99").applied(to: 99_950) == 99_999)
        #expect(try BadgeChange("+1").applied(to: 99_998) == 99_999)
        #expect(try BadgeChange("-1").applied(to: 0) == 0)
        #expect(try BadgeChange("-99").applied(to: 5) == 0)
        #expect(try BadgeChange("-1").applied(to: 1) == 0)
        #expect(try BadgeChange("42").applied(to: 99_999) == 42)
        #expect(try BadgeChange("+3").applied(to: 4) == 7)
    }

    @Test func oneSpellingPerChange() throws {
        #expect(try BadgeChange("+05").text == "+5")
        #expect(try BadgeChange("-0").text == "+0")
        #expect(try BadgeChange("07").text == "7")
        #expect(try BadgeChange("-12").text == "-12")
    }
}
