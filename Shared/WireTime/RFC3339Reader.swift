/// A cursor over the UTF-8 bytes of one RFC 3339 `date-time`, for `RFC3339.seconds(from:)`: read by
/// hand because a Foundation formatter costs tens of microseconds a call and analytics reads a time
/// per event.
struct RFC3339Reader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Unix seconds of the whole text, or nil when it is not exactly one `date-time`.
    mutating func read() -> Double? {
        guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2),
              take("T") || take("t") || take(" "),
              let hour = number(2), take(":"), let minute = number(2), take(":"), let second = number(2),
              (1...12).contains(month), (1...Gregorian.daysInMonth(year: year, month: month)).contains(day),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        var milliseconds = 0
        if take(".") {
            guard let fraction = fraction() else { return nil }
            milliseconds = fraction
        }
        guard let offset = offset(), index == bytes.count else { return nil }
        let wall = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute).wallSeconds + Int64(second)
        return Double(wall - Int64(offset)) + Double(milliseconds) / 1000
    }

    /// Seconds east of UTC: `Z`, `z` or `±HH:MM`.
    private mutating func offset() -> Int? {
        if take("Z") || take("z") { return 0 }
        let sign: Int
        if take("+") { sign = 1 } else if take("-") { sign = -1 } else { return nil }
        guard let hours = number(2), take(":"), let minutes = number(2), hours <= 23, minutes <= 59 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }

    /// The digits after the decimal point as milliseconds; at least one digit, those past the third
    /// ignored (the wire writes milliseconds, and Foundation's formatter reads no further).
    private mutating func fraction() -> Int? {
        var milliseconds = 0
        var count = 0
        while let digit = digit() {
            if count < 3 { milliseconds = milliseconds * 10 + digit }
            count += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 3) { milliseconds *= 10 }
        return milliseconds
    }

    /// A number of exactly `count` ASCII digits.
    private mutating func number(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private mutating func digit() -> Int? {
        guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { return nil }
        index += 1
        return Int(bytes[index - 1] - 0x30)
    }

    private mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }
}
