import Foundation
import Testing
import WireTime

/// What Foundation's `ISO8601DateFormatter` reads in `text` (internet date-time, with or without a fraction),
/// the reference the one grammar is checked against.
func foundationDate(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text)
}

func foundationSeconds(_ text: String) -> Double? { foundationDate(text)?.timeIntervalSince1970 }

@Suite("RFC 3339")
struct RFC3339Tests {
    static let texts = [
        "2025-03-01T08:00:05Z", "2025-03-01T08:00:05.123Z", "2025-03-01T08:00:05.123456Z", "2025-03-01T08:00:05.1Z",
        "2025-03-01T08:00:05.9999Z", "2025-03-01T08:00:05+08:00",
        "2025-03-01T08:00:05-03:30", "2024-02-29T23:59:59Z", "1969-12-31T23:59:59.500Z", "2000-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "2025-03-01T08:00:05-00:00", "2025-03-01T08:00:05+23:59",
    ]

    @Test(arguments: texts)
    func readsWhatTheFormatterReads(_ text: String) {
        #expect(RFC3339.seconds(from: text) != nil)
        #expect(RFC3339.date(from: text) == foundationDate(text), "the one grammar gives what the formatter gives")
    }

    /// Forms the formatter let through before there was one grammar, each refused now: a date the month
    /// lacks or 24:00 was moved to another day, a five-digit year lost a digit, an offset's minutes
    /// were dropped, and trailing text was ignored. None is RFC 3339.
    static let lenient = [
        "2025-02-30T08:00:05Z", "2025-04-31T08:00:05Z", "2025-03-01T24:00:00Z", "12025-03-01T08:00:05Z",
        "2025-03-01T08:00:05+08:60", "2025-03-01T08:00:05+24:00", "2025-03-01T08:00:05-0330", "2025-03-01T08:00:05+08",
        "2025-03-01T08:00:05Z ", " 2025-03-01T08:00:05Z", "2025-03-01T08:00:05Zjunk", "2025-03-01T08:00:05+08:00x",
        "2025-3-01T08:00:05Z", "2025-03-01T8:00:05Z", "２025-03-01T08:00:05Z",
    ]

    @Test(arguments: lenient)
    func refusesWhatTheFormatterGuessedAt(_ text: String) {
        #expect(foundationSeconds(text) != nil, "the formatter reads it")
        #expect(RFC3339.seconds(from: text) == nil)
    }

    @Test(arguments: ["tomorrow", "", "2025-03-01T08:00:05", "2025-03-01T08:00:05.Z", "2025-03-01T08:60:05Z",
                      "2025-13-01T08:00:05Z", "2025-03-00T08:00:05Z", "2025-03-01T08:00:61Z", "2025-03-01T08:00:05,5Z",
                      "2025-03-01T08:00Z", "20250301T080005Z", "+2025-03-01T08:00:05Z", "2025-03-01T08:00:05.+08:00"])
    func refusesWhatIsNoTime(_ text: String) {
        #expect(RFC3339.seconds(from: text) == nil)
    }

    @Test func readsWhatRFC3339AllowsBesideTheCommonForm() {
        let common = RFC3339.seconds(from: "2025-03-01T08:00:05Z")
        #expect(common == 1_740_816_005)
        for text in ["2025-03-01t08:00:05z", "2025-03-01 08:00:05Z", "2025-03-01T08:00:05z", "2025-03-01t08:00:05Z"] {
            #expect(RFC3339.seconds(from: text) == common, "lower-case t and z, or a space, as RFC 3339 allows: \(text)")
        }
        #expect(RFC3339.seconds(from: "2016-12-31T23:59:60Z") == RFC3339.seconds(from: "2017-01-01T00:00:00Z"),
                "a leap second is read as the next minute's start")
        #expect(RFC3339.seconds(from: "2025-03-01T16:00:05.250+08:00") == 1_740_816_005.25)
        #expect(RFC3339.seconds(from: "2025-03-01T08:00:05.123456789Z") == 1_740_816_005.123,
                "digits past the millisecond are ignored, as the formatter ignores them")
        #expect(RFC3339.date(from: "2025-03-01T08:00:05Z") == Date(timeIntervalSince1970: 1_740_816_005))
    }

    @Test func writesUTC() {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_740_816_005.25)) == "2025-03-01T08:00:05Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_740_816_005.25), fractional: true) == "2025-03-01T08:00:05.250Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 0), fractional: true) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 951_868_799.009), fractional: true) == "2000-02-29T23:59:59.009Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -0.5), fractional: true) == "1969-12-31T23:59:59.500Z")
    }

    @Test func writesMillisecondsOnlyWhenThereAreAny() {
        #expect(RFC3339.string(seconds: 1_740_816_005) == "2025-03-01T08:00:05Z")
        #expect(RFC3339.string(seconds: 1_740_816_005.768) == "2025-03-01T08:00:05.768Z")
    }

    @Test func writesWhatItReads() {
        for seconds in stride(from: 0.0, to: 4_000_000_000, by: 86_399_937.5) {
            let text = RFC3339.string(from: Date(timeIntervalSince1970: seconds), fractional: true)
            #expect(RFC3339.date(from: text)?.timeIntervalSince1970 == seconds, "\(text)")
        }
    }

    /// Random date-times of every shape the grammar and the formatter share (a fraction of up to three
    /// digits, `Z` or any offset), read by both; a new seed each run (`TestRandom`: `PUSHBUS_TEST_SEED`
    /// replays one). Years start at 1600: before the Gregorian reform (1582) Foundation's
    /// formatter counts Julian days, where RFC 3339 (and both parsers it replaces) count proleptic Gregorian.
    @Test func readsRandomTimesAsTheFormatterDoes() {
        var random = TestRandom()
        let seed = random.seed
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        for _ in 0..<2_000 {
            let year = Int.random(in: 1600...9999, using: &random), month = Int.random(in: 1...12, using: &random)
            let day = Int.random(in: 1...Gregorian.daysInMonth(year: year, month: month), using: &random)
            var text = "\(year)-\(two(month))-\(two(day))T\(two(Int.random(in: 0...23, using: &random))):"
                + "\(two(Int.random(in: 0...59, using: &random))):\(two(Int.random(in: 0...59, using: &random)))"
            let digits = Int.random(in: 0...3, using: &random)
            if digits > 0 { text += "." + (0..<digits).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined() }
            if Bool.random(using: &random) {
                text += "Z"
            } else {
                text += (Bool.random(using: &random) ? "+" : "-") + two(Int.random(in: 0...23, using: &random)) + ":"
                    + two(Int.random(in: 0...59, using: &random))
            }
            #expect(RFC3339.date(from: text) == foundationDate(text), "seed \(seed): \(text)")
        }
    }
}
