import Foundation
import Runtime
import Schema

/// How many shards each service runs, from `--shards tagging=2,badge=2` (absent = 1).
public struct ShardMap: Sendable, Equatable {
    public private(set) var counts: [String: Int] = [:]

    public init() {}

    /// Parses `service=count` pairs separated by commas; "" is no shards.
    public init(parsing text: String) throws(UsageError) {
        for pair in text.split(separator: ",") where !pair.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = pair.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let service = Service(rawValue: parts[0]), let count = Int(parts[1]), (1...1024).contains(count) else {
                throw UsageError("--shards takes service=count pairs, e.g. tagging=2,badge=2 (services: "
                                 + Service.allCases.map(\.name).joined(separator: ", ") + ")")
            }
            if count > 1 { counts[service.name] = count }
        }
    }

    public func count(_ service: String) -> Int { counts[service] ?? 1 }
}
