/// Nearest-rank percentiles of a sample.
struct Percentiles {
    let sorted: [Double]

    init(_ values: [Double]) { sorted = values.sorted() }

    func at(_ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    var p50: Double { at(0.5) }
    var p99: Double { at(0.99) }
    var maximum: Double { sorted.last ?? .nan }
}
