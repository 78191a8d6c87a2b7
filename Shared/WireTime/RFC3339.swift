import Foundation

/// RFC 3339 times, the one time format on the wire, in stored JSON and in logs: written in UTC, read
/// in one grammar by every service (see `seconds(from:)`).
public enum RFC3339 {
    /// `2026-11-29T15:04:05Z`, or with milliseconds `2026-11-29T15:04:05.123Z`.
    public static func string(from date: Date, fractional: Bool = false) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        let time = CivilTime(wallSeconds: Int64(whole))
        // Built by hand, straight into the string's storage: String(format:) costs microseconds,
        // and every event carries a time.
        // At most 24 bytes: `2026-12-01T21:20:19.123Z` (a year has its 4 places, as it had before).
        return String(unsafeUninitializedCapacity: 24) { bytes in
            var count = 0
            func append(_ byte: UInt8) {
                bytes[count] = byte
                count += 1
            }
            func digits(_ value: Int, _ places: Int) {
                var divisor = 1
                for _ in 1..<places { divisor *= 10 }
                var rest = value
                while divisor > 0 {
                    append(UInt8(48 + rest / divisor % 10))
                    rest %= divisor
                    divisor /= 10
                }
            }
            digits(time.year, 4); append(0x2D)
            digits(time.month, 2); append(0x2D)
            digits(time.day, 2); append(0x54)
            digits(time.hour, 2); append(0x3A)
            digits(time.minute, 2); append(0x3A)
            digits(time.second, 2)
            if fractional {
                append(0x2E)
                digits(min(999, Int(((seconds - whole) * 1000).rounded())), 3)
            }
            append(0x5A)
            return count
        }
    }

    /// Unix seconds as the wire writes a time that may have a fraction (`next_fire_at`, `fired_at`):
    /// with milliseconds when there are any.
    public static func string(seconds: Double) -> String {
        string(from: Date(timeIntervalSince1970: seconds), fractional: seconds.rounded(.down) != seconds)
    }

    /// The instant `text` names, or nil when it is not an RFC 3339 date-time (see `seconds(from:)`).
    public static func date(from text: String) -> Date? {
        seconds(from: text).map(Date.init(timeIntervalSince1970:))
    }

    /// Unix seconds of an RFC 3339 `date-time` (section 5.6), or nil for anything else:
    /// `YYYY-MM-DD`, `T` (or `t`, or a space, as the RFC allows), `HH:MM:SS`, an optional fraction of
    /// any length (kept to the millisecond), then `Z` (or `z`) or `±HH:MM`. Every field must be in range:
    /// a day the month has, hours to 23, minutes to 59, seconds to 60 (a leap second, read as the start
    /// of the next minute), offsets to 23:59. Nothing may come before or after.
    public static func seconds(from text: String) -> Double? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = RFC3339Reader(bytes)
            return reader.read()
        }
    }
}
