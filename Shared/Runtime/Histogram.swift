/// Latency counts in Prometheus buckets (seconds): cumulative on output, plain counts inside.
public struct Histogram: Codable, Sendable, Equatable {
    public static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    public private(set) var counts = Array(repeating: 0, count: Histogram.bounds.count + 1)
    public private(set) var sum = 0.0
    public private(set) var count = 0

    public init() {}

    public mutating func record(seconds: Double) {
        counts[Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count] += 1
        sum += seconds
        count += 1
    }

    /// Prometheus text lines for `name` with `labels` (e.g. `service="tagging"`).
    public func lines(_ name: String, labels: String) -> [String] {
        var lines: [String] = []
        var cumulative = 0
        for (bound, n) in zip(Self.bounds, counts) {
            cumulative += n
            lines.append("\(name)_bucket{\(labels),le=\"\(bound)\"} \(cumulative)")
        }
        lines.append("\(name)_bucket{\(labels),le=\"+Inf\"} \(count)")
        lines.append("\(name)_sum{\(labels)} \(sum)")
        lines.append("\(name)_count{\(labels)} \(count)")
        return lines
    }
}
