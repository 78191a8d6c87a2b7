import Foundation

/// RFC 3339 / ISO 8601 times in UTC, the one time format on the wire and in logs.
public enum RFC3339 {
    /// `2026-11-29T15:04:05Z`, or with milliseconds `2026-11-29T15:04:05.123Z`.
    public static func string(from date: Date, fractional: Bool = false) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&whole, &parts)
        // Built by hand: String(format:) costs microseconds, and every event carries a time.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(48 + rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1900, 4); bytes.append(0x2D)
        digits(Int(parts.tm_mon) + 1, 2); bytes.append(0x2D)
        digits(Int(parts.tm_mday), 2); bytes.append(0x54)
        digits(Int(parts.tm_hour), 2); bytes.append(0x3A)
        digits(Int(parts.tm_min), 2); bytes.append(0x3A)
        digits(Int(parts.tm_sec), 2)
        if fractional {
            bytes.append(0x2E)
            digits(min(999, Int(((seconds - seconds.rounded(.down)) * 1000).rounded())), 3)
        }
        bytes.append(0x5A)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses an RFC 3339 time with `Z` or an offset, with or without fractional seconds
    /// (kept to the millisecond).
    public static func date(from text: String) -> Date? {
        if let seconds = commonForm(text) { return Date(timeIntervalSince1970: seconds) }
        return formatterDate(text)
    }

    /// What `ISO8601DateFormatter` reads in `text`, fractional seconds or not.
    static func formatterDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// Unix seconds of `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)` with every field in range, read by
    /// hand because a formatter costs tens of microseconds a call; nil for anything else, which
    /// the formatter then judges. Gives what the formatter gives for the texts it accepts.
    static func commonForm(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func byte(_ index: Int, is character: Character) -> Bool {
            index < bytes.count && bytes[index] == character.asciiValue
        }
        guard let year = number(0, 4), byte(4, is: "-"), let month = number(5, 2), byte(7, is: "-"),
              let day = number(8, 2), byte(10, is: "T"), let hour = number(11, 2), byte(13, is: ":"),
              let minute = number(14, 2), byte(16, is: ":"), let second = number(17, 2),
              (1...12).contains(month), (1...Gregorian.daysInMonth(year: year, month: month)).contains(day),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        var index = 19
        var millis = 0
        if byte(index, is: ".") {
            index += 1
            let digits = bytes[index...].prefix { (0x30...0x39).contains($0) }
            guard !digits.isEmpty else { return nil }
            var scale = 100
            for digit in digits.prefix(3) {
                millis += Int(digit - 0x30) * scale
                scale /= 10
            }
            index += digits.count
        }
        var offset = 0
        if byte(index, is: "Z") {
            index += 1
        } else if byte(index, is: "+") || byte(index, is: "-") {
            guard let hours = number(index + 1, 2), byte(index + 3, is: ":"), let minutes = number(index + 4, 2),
                  hours <= 23, minutes <= 59 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (byte(index, is: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Double(Int(timegm(&parts)) - offset) + Double(millis) / 1000
    }
}
