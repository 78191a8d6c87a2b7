import Foundation
import Testing
@testable import Runtime

@Suite("RFC 3339")
struct RFC3339Tests {
    static let texts = [
        "2025-03-01T08:00:05Z", "2025-03-01T08:00:05.123Z", "2025-03-01T08:00:05.123456Z", "2025-03-01T08:00:05.1Z",
        "2025-03-01T08:00:05.9999Z", "2025-03-01T08:00:05+08:00", "2025-03-01T08:00:05-03:30", "2024-02-29T23:59:59Z",
        "1969-12-31T23:59:59.500Z", "2000-01-01T00:00:00+14:00", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z",
        // Left to the formatter: lenient or malformed forms.
        "2025-02-30T08:00:05Z", "2025-03-01T24:00:00Z", "2025-03-01T08:00:05-0330", "2025-03-01t08:00:05z",
        "2025-03-01 08:00:05Z", "2025-03-01T08:00:05", "2025-03-01T08:00:05.Z", "2025-03-01T08:00:60Z", "2025-13-01T08:00:05Z",
        "tomorrow", "", "2025-03-01T08:00:05Z ", "2025-03-01T08:00:05+08:00x",
    ]

    @Test(arguments: texts)
    func readsWhatTheFormatterReads(_ text: String) {
        #expect(RFC3339.date(from: text) == RFC3339.formatterDate(text), "the fast path gives what the formatter gives")
    }

    @Test func theCommonFormSkipsTheFormatter() {
        #expect(RFC3339.commonForm("2025-03-01T16:00:05.250+08:00") == 1_740_816_005.25)
        #expect(RFC3339.commonForm("2025-02-30T08:00:05Z") == nil, "a day the month lacks goes to the formatter")
        #expect(RFC3339.commonForm("2025-03-01T08:00:05-0330") == nil)
    }

    @Test func writesUTC() {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_740_816_005.25)) == "2025-03-01T08:00:05Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_740_816_005.25), fractional: true) == "2025-03-01T08:00:05.250Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 0), fractional: true) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 951_868_799.009), fractional: true) == "2000-02-29T23:59:59.009Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59Z")
    }

    @Test func writesWhatItReads() {
        for seconds in stride(from: 0.0, to: 4_000_000_000, by: 86_399_937.5) {
            let text = RFC3339.string(from: Date(timeIntervalSince1970: seconds), fractional: true)
            #expect(RFC3339.date(from: text)?.timeIntervalSince1970 == seconds, "\(text)")
        }
    }
}
