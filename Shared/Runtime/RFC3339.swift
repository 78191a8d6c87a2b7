import Foundation

/// RFC 3339 / ISO 8601 times in UTC, the one time format on the wire and in logs.
public enum RFC3339 {
    /// `2026-11-29T15:04:05Z`, or with milliseconds `2026-11-29T15:04:05.123Z`.
    public static func string(from date: Date, fractional: Bool = false) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&whole, &parts)
        let base = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                          Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        guard fractional else { return base + "Z" }
        let millis = min(999, Int(((seconds - seconds.rounded(.down)) * 1000).rounded(.down)))
        return base + String(format: ".%03dZ", millis)
    }

    /// Parses an RFC 3339 time with `Z` or an offset, with or without fractional seconds.
    public static func date(from text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
