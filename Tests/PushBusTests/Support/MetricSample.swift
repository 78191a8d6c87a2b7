import Foundation

/// The value of the first sample line of a `/metrics` page that starts with `prefix` (a family name
/// and its labels), or 0 when there is none.
func metricSample(_ page: String, _ prefix: String) -> Double {
    page.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
}

extension TestStack {
    /// The gateway's `/metrics` page once its sample `prefix` reaches `least` (workers report every
    /// two seconds), or the last page fetched when `seconds` have passed first.
    func metricsPage(once prefix: String, reaches least: Double, within seconds: Double = 10) throws -> String {
        var page = ""
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            page = try HTTPGet.fetch(port: metricsPort, path: "/metrics").body
            if metricSample(page, prefix) >= least { break }
            usleep(100_000)
        } while Date() < deadline
        return page
    }
}
