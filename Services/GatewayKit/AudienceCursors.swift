import Foundation
import JSON
import Schema

/// A cross-shard audience cursor, opaque to clients: each shard's own place and the total it
/// reported on the first page. Made and read by `AudiencePaging` only.
struct AudienceCursors: Equatable {
    struct Shard: Codable, Equatable {
        /// Where the shard's next page starts: its own cursor, "" before its first page, nil once
        /// it has no more (tagging's cursors are never empty).
        var cursor: String?
        var total: Int
        enum CodingKeys: String, CodingKey { case cursor = "c", total = "t" }

        static let fresh = Shard(cursor: "", total: 0)
        var isExhausted: Bool { cursor == nil }
    }

    var shards: [Shard]

    init(shards: [Shard]) { self.shards = shards }

    init?(_ text: String) {
        guard let data = Data(base64Encoded: text), let shards = try? JSONTreeDecoder().decode([Shard].self, from: data) else {
            return nil
        }
        self.shards = shards
    }

    var text: String { WireCodec.encode(shards).base64EncodedString() }
}
