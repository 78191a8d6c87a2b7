import Foundation
import Runtime
import Schema
import WireTime

/// The buckets of a `stats.events` query: whole UTC hours or days, `from` rounded down and `to` rounded
/// up to a bucket boundary, every bucket listed (zero when nothing happened), at most 10,000.
struct StatsWindow: Equatable {
    static let maxBuckets = 10_000

    /// Hours per bucket.
    let hoursPerBucket: Int
    /// The first hour (Unix seconds / 3600) of the first bucket.
    let fromHour: Int
    let bucketCount: Int

    var toHour: Int { fromHour + bucketCount * hoursPerBucket }

    init(_ p: StatsEvents) throws(CommandError) {
        guard let fromText = p.from else { throw .empty("from is missing") }
        guard let toText = p.to else { throw .empty("to is missing") }
        guard let bucket = p.bucket else { throw .empty("bucket is missing: hour or day") }
        guard let from = RFC3339.seconds(from: fromText) else { throw .invalid("from is not an RFC 3339 time") }
        guard let to = RFC3339.seconds(from: toText) else { throw .invalid("to is not an RFC 3339 time") }
        guard from < to else { throw .invalid("from must be before to") }
        hoursPerBucket = bucket == .day ? 24 : 1
        let size = Double(hoursPerBucket * 3600)
        let first = (from / size).rounded(.down)
        let last = (to / size).rounded(.up)
        guard last - first <= Double(Self.maxBuckets) else {
            throw .invalid("\(Int(last - first)) buckets asked for; at most \(Self.maxBuckets)")
        }
        fromHour = Int(first) * hoursPerBucket
        bucketCount = Int(last - first)
    }

    /// Sums hourly (hour, count) pairs into the window's buckets.
    func buckets(_ hourly: [(Int, Int)]) -> [StatsBucket] {
        var counts = Array(repeating: 0, count: bucketCount)
        for (hour, count) in hourly where hour >= fromHour && hour < toHour {
            counts[(hour - fromHour) / hoursPerBucket] += count
        }
        return counts.enumerated().map { index, count in
            let start = Double(fromHour + index * hoursPerBucket) * 3600
            return StatsBucket(start: RFC3339.string(from: Date(timeIntervalSince1970: start)), count: count)
        }
    }
}
