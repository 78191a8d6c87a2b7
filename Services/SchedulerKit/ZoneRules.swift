import Foundation

/// A time zone's offsets, for turning instants into wall readings and back, in whole seconds.
/// Clocks set forward leave a gap of readings no instant shows; clocks set back show an overlap
/// of readings twice.
struct ZoneRules {
    let zone: TimeZone

    static let utc = ZoneRules(zone: TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0)!)

    /// Seconds east of UTC at `instant` (Unix seconds).
    func offset(at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))))
    }

    /// The wall reading at `instant`.
    func wallSeconds(at instant: Int64) -> Int64 { instant + offset(at: instant) }

    /// The instants that show `wall`, earliest first: one as a rule, two in an overlap, and for a
    /// reading inside a gap the instant the gap ends (the next reading that exists).
    func instants(showing wall: Int64) -> [Int64] {
        let before = offset(at: wall - 86_400)
        let after = offset(at: wall + 86_400)
        let showing = Set([before, after]).map { wall - $0 }.filter { wallSeconds(at: $0) == wall }.sorted()
        if !showing.isEmpty { return showing }
        return [gapEnd(from: wall - max(before, after), to: wall - min(before, after))]
    }

    /// The first instant in `low...high` whose offset differs from the offset at `low`
    /// (clocks moved between them), found by bisection.
    private func gapEnd(from low: Int64, to high: Int64) -> Int64 {
        let offsetBefore = offset(at: low)
        guard offset(at: high) != offsetBefore else { return high }
        var low = low, high = high
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(at: middle) == offsetBefore { low = middle } else { high = middle }
        }
        return high
    }
}
