/// Latency percentiles from samples in microseconds.
public struct LatencyStats: Codable, Equatable, Sendable {
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double

    enum CodingKeys: String, CodingKey { case p50 = "p50_ms", p90 = "p90_ms", p99 = "p99_ms", p999 = "p99_9_ms", max = "max_ms" }

    /// From unsorted microsecond samples; all zero when there are none.
    public init(microseconds samples: [UInt32]) {
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = Swift.min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
            return Double(sorted[Swift.max(0, index)]) / 1000
        }
        p50 = at(0.5)
        p90 = at(0.9)
        p99 = at(0.99)
        p999 = at(0.999)
        max = Double(sorted.last ?? 0) / 1000
    }
}
