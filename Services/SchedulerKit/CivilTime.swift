import Runtime

/// A wall-clock reading: a proleptic Gregorian date and a time of day, with no time zone.
/// Wall seconds count them like Unix seconds would if the zone were UTC, so calendar arithmetic
/// on them is plain integer arithmetic (Howard Hinnant's days-from-civil algorithms).
struct CivilTime: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    /// The reading `wallSeconds` stands for.
    init(wallSeconds: Int64) {
        let days = Int(wallSeconds.floorDivided(by: 86_400))
        let secondOfDay = Int(wallSeconds - Int64(days) * 86_400)
        (year, month, day) = Self.civil(fromDays: days)
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    var wallSeconds: Int64 {
        Int64(Self.days(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// Days since 1970-01-01 of a date.
    static func days(year: Int, month: Int, day: Int) -> Int { Gregorian.days(year: year, month: month, day: day) }

    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// 1 = Sunday … 7 = Saturday, as iOS numbers weekdays.
    static func weekday(year: Int, month: Int, day: Int) -> Int {
        (days(year: year, month: month, day: day) + 4).modulo(7) + 1
    }

    static func daysInMonth(year: Int, month: Int) -> Int { Gregorian.daysInMonth(year: year, month: month) }
}

extension Int64 {
    /// Division rounding towards minus infinity.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

extension Int {
    /// The remainder in 0..<divisor, also for negative values.
    func modulo(_ divisor: Int) -> Int {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
