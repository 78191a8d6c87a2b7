import Foundation
import Schema

/// How many shards each service runs: `--shards tagging=2,badge=2` (a service not named runs one).
/// The one grammar of `--shards`: the launcher starts this many workers of each service and passes
/// the same map to the gateway, which routes by it; a worker is told its own place with
/// `--shard-index` and `--shard-count` (`ShardLayout`).
public struct ShardMap: Sendable, Equatable {
    /// The most shards a service may have, here and in `ShardLayout`.
    public static let limit = 1024

    /// service name → its shard count, for services with more than one.
    public private(set) var counts: [String: Int] = [:]

    public init() {}

    /// Parses `service=count` pairs separated by commas (spaces around them ignored); "" is no shards.
    /// `flag` names the flag in the error (the launcher's `--replicas` takes the same grammar).
    public init(parsing text: String, flag: String = "shards") throws(UsageError) {
        for pair in text.split(separator: ",") where !pair.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = pair.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let service = Service(rawValue: parts[0]), let count = Int(parts[1]),
                  (1...Self.limit).contains(count) else {
                throw UsageError("--\(flag) takes service=count pairs with 1...\(Self.limit) shards, e.g. tagging=2,badge=2 (services: "
                                 + Service.allCases.map(\.name).joined(separator: ", ") + ")")
            }
            if count > 1 { counts[service.name] = count }
        }
    }

    public func count(_ service: String) -> Int { counts[service] ?? 1 }

    public func count(_ service: Service) -> Int { count(service.name) }

    /// The map as `--shards` takes it, services in name order: what the launcher gives the gateway.
    public var text: String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }
}

extension Option {
    /// `--shards`, the same flag for the launcher and the gateway.
    public static func shards(_ property: WritableKeyPath<Root, ShardMap> & Sendable) -> Option {
        Option("shards", property,
               help: "Shards per service, e.g. tagging=2,badge=2 (1...\(ShardMap.limit); a service not named runs one); "
                   + "the launcher starts that many workers and gives the gateway the same map.",
               format: { $0.text }, parse: { text throws(UsageError) in try ShardMap(parsing: text) })
    }
}
