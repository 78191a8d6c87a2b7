/// A wall-clock reading: a proleptic Gregorian date and a time of day, with no time zone.
/// Wall seconds count them like Unix seconds would if the zone were UTC, so calendar arithmetic
/// on them is plain integer arithmetic; a UTC time's wall seconds are its Unix seconds.
public struct CivilTime: Equatable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    /// The reading `wallSeconds` stands for.
    public init(wallSeconds: Int64) {
        let quotient = wallSeconds / 86_400
        let days = wallSeconds % 86_400 < 0 ? quotient - 1 : quotient
        let secondOfDay = Int(wallSeconds - days * 86_400)
        (year, month, day) = Gregorian.date(days: Int(days))
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Seconds since 1970-01-01T00:00:00 of this reading, as if in UTC.
    public var wallSeconds: Int64 {
        Int64(Gregorian.days(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }
}
