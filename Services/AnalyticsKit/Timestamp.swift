import Foundation
import Runtime

/// A fast RFC 3339 parser for the times of event batches (Foundation's formatter is built per call, too
/// slow for hundreds of thousands of events). Accepts `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds,
/// then `Z` or `±HH:MM`; `t`/`z` and a space for `T` as RFC 3339 allows.
enum Timestamp {
    /// Unix seconds, or nil when `text` is not an RFC 3339 date-time.
    static func parse(_ text: String) -> Double? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
              let day = scanner.digits(2), scanner.takeAny(["T", "t", " "]),
              let hour = scanner.digits(2), scanner.take(":"), let minute = scanner.digits(2), scanner.take(":"),
              let second = scanner.digits(2) else { return nil }
        guard (1...12).contains(month), (1...Gregorian.daysInMonth(year: year, month: month)).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if scanner.take(".") {
            var scale = 0.1
            var count = 0
            while let digit = scanner.digit() {
                fraction += Double(digit) * scale
                scale /= 10
                count += 1
            }
            guard count > 0 else { return nil }
        }
        var offset = 0
        if scanner.takeAny(["Z", "z"]) {
            offset = 0
        } else if let sign = scanner.sign(), let hours = scanner.digits(2), scanner.take(":"), let minutes = scanner.digits(2),
                  hours < 24, minutes < 60 {
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard scanner.atEnd else { return nil }
        let days = Gregorian.days(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func digit() -> Int? {
            guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
            index += 1
            return Int(bytes[index - 1] - 0x30)
        }

        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        mutating func take(_ character: Character) -> Bool { takeAny([character]) }

        mutating func takeAny(_ characters: [Character]) -> Bool {
            guard index < bytes.count, characters.contains(where: { $0.asciiValue == bytes[index] }) else { return false }
            index += 1
            return true
        }

        mutating func sign() -> Int? {
            if take("+") { return 1 }
            if take("-") { return -1 }
            return nil
        }
    }
}
