import Foundation
import Schema

/// Which shard a worker is and where its database lives: `<service>.sqlite` alone, or
/// `<service>-<k>-of-<n>.sqlite` for shard k of n. Starting with a shard count that does not match
/// the data already in the directory is refused, so a device's data is never silently left behind.
public struct ShardLayout: Sendable, Equatable {
    /// This worker's shard, 0-based (`--shard-index`).
    public var index: Int
    /// How many shards its service has (`--shard-count`), as the launcher's and the gateway's
    /// `--shards` map says.
    public var count: Int

    public init(index: Int = 0, count: Int = 1) {
        self.index = index
        self.count = count
    }

    /// Whether `index` is one of `count` shards.
    public func validate() throws(UsageError) {
        guard index < count else { throw UsageError("--shard-index must be below --shard-count (\(count))") }
    }

    /// The MDP service name this shard's workers announce.
    public func serviceName(_ service: String) -> String { ShardHash.serviceName(service, shard: index, of: count) }

    /// The database file of this shard.
    public func databaseFile(_ service: String) -> String {
        count > 1 ? "\(service)-\(index)-of-\(count).sqlite" : "\(service).sqlite"
    }

    /// Throws when `directory` holds `service` data written with another shard count.
    public func check(directory: String, service: String) throws {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for file in files {
            guard let found = Self.shardCount(of: file, service: service), found != count else { continue }
            throw LayoutMismatch(service: service, stored: found, wanted: count, file: file)
        }
    }

    /// The shard count a file name says it was written for, if it is a database of `service`.
    static func shardCount(of file: String, service: String) -> Int? {
        if file == "\(service).sqlite" { return 1 }
        guard file.hasPrefix("\(service)-"), file.hasSuffix(".sqlite") else { return nil }
        let middle = file.dropFirst(service.count + 1).dropLast(".sqlite".count).split(separator: "-")
        guard middle.count == 3, middle[1] == "of", Int(middle[0]) != nil, let count = Int(middle[2]) else { return nil }
        return count
    }

    public struct LayoutMismatch: Error, CustomStringConvertible {
        public let service: String
        public let stored: Int
        public let wanted: Int
        public let file: String
        public var description: String {
            "the data directory holds \(service) data for \(stored) shard(s) (\(file)) but \(wanted) were asked for; "
                + "start with --shards \(service)=\(stored), or move the data out of the way to start empty"
        }
    }
}
