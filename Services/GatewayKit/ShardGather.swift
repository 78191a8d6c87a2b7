import Credentials
import Foundation
import Runtime
import Schema

/// Queries that span every shard of a service: how the gateway splits the request and merges the
/// replies. An audience is paged across shards with a cursor that holds each shard's own cursor.
enum ShardGather {
    /// One payload per shard; nil where a shard has nothing to do for this request.
    static func split(_ command: Command, payload: Data, count: Int) -> [Data?] {
        guard case .object(var fields)? = try? JSONDecoder().decode(JSONValue.self, from: payload) else {
            // Malformed: let shard 0 answer it with the proper error.
            return [payload] + Array(repeating: nil, count: count - 1)
        }
        if command == .audienceResolve {
            return splitAudience(fields, count: count)
        }
        if command == .appCreate, fields["app_key"] == nil {
            // The shards must agree on the new app's key, so the gateway draws it.
            fields["app_key"] = .string(RandomKey.hex(bytes: 12))
            return Array(repeating: WireCodec.encode(JSONValue.object(fields)), count: count)
        }
        if case .array(let ids)? = fields["registration_ids"] {
            var parts = Array(repeating: [JSONValue](), count: count)
            for id in ids {
                parts[id.string.map { ShardHash.shard(of: $0, count: count) } ?? 0].append(id)
            }
            return parts.enumerated().map { shard, ids in
                guard !ids.isEmpty || shard == 0 else { return nil }
                fields["registration_ids"] = .array(ids)
                return WireCodec.encode(JSONValue.object(fields))
            }
        }
        return Array(repeating: payload, count: count)
    }

    /// Merges the shards' replies to `request` (nil where a shard was not asked); the first error wins.
    static func merge(_ command: Command, request: Data, replies: [Data?], seq: Int?) -> Data {
        let values = replies.map { $0.flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) } }
        for (reply, value) in zip(replies, values) where reply != nil {
            guard let value, let code = value["code"]?.number else {
                return WireCodec.errorReply(CommandError(.internalError, "a shard answered garbage"), seq: seq)
            }
            if code != 0 { return reply! }
        }
        var merged: JSONValue
        switch command {
        case .audienceResolve: merged = mergeAudience(values, request: request)
        case .tagsList: merged = .object(["tags": .array(Set(values.flatMap { strings($0?["tags"]) }).sorted().map(JSONValue.string))])
        case .statsEvents: merged = mergeBuckets(values)
        default: merged = values.compactMap { $0 }.reduce(JSONValue.object([:]), combine)
        }
        if case .object(var fields) = merged {
            fields["code"] = .number(0)
            fields["seq"] = seq.map { .number(Double($0)) }
            merged = .object(fields.filter { $0.value != .null || $0.key == "next_cursor" || $0.key == "tags" })
        }
        return WireCodec.encode(merged)
    }

    // MARK: audiences

    /// Each shard gets its share of the page and its own cursor; shards already exhausted are skipped.
    private static func splitAudience(_ fields: [String: JSONValue], count: Int) -> [Data?] {
        let limit = Int(fields["limit"]?.number ?? 1000)
        let share = max(1, (limit + count - 1) / count)
        var cursors: [JSONValue] = Array(repeating: .string(""), count: count)
        if let text = fields["cursor"]?.string {
            guard let cursor = AudienceCursors(text), cursor.shards.count == count else {
                return [WireCodec.encode(JSONValue.object(fields.merging(["cursor": .string("not a gateway cursor")]) { $1 }))]
                    + Array(repeating: nil, count: count - 1)
            }
            cursors = cursor.shards.map { $0.cursor.map(JSONValue.string) ?? .null }
        }
        return cursors.map { cursor -> Data? in
            if cursor == .null { return nil }
            var part = fields
            part["limit"] = .number(Double(share))
            part["cursor"] = cursor == .string("") ? nil : cursor
            return WireCodec.encode(JSONValue.object(part))
        }
    }

    /// Concatenates the shards' pages; a shard not asked (exhausted earlier) keeps the total its
    /// last page reported, carried in the cursor.
    private static func mergeAudience(_ replies: [JSONValue?], request: Data) -> JSONValue {
        let previous = (try? JSONDecoder().decode(JSONValue.self, from: request))?["cursor"]?.string.flatMap(AudienceCursors.init)
        let ids = replies.flatMap { strings($0?["registration_ids"]) }
        let shards = replies.enumerated().map { shard, reply -> AudienceCursors.Shard in
            guard let reply else { return previous?.shards[shard] ?? .init(cursor: nil, total: 0) }
            return .init(cursor: reply["next_cursor"]?.string, total: Int(reply["total"]?.number ?? 0))
        }
        let next: JSONValue = shards.allSatisfy { $0.cursor == nil } ? .null : .string(AudienceCursors(shards: shards).text)
        let total = shards.reduce(0) { $0 + $1.total }
        return .object(["registration_ids": .array(ids.map(JSONValue.string)), "total": .number(Double(total)), "next_cursor": next])
    }

    // MARK: generic merging

    /// Adds numbers, concatenates arrays, merges objects key by key; anything else keeps the first.
    private static func combine(_ a: JSONValue, _ b: JSONValue) -> JSONValue {
        switch (a, b) {
        case (.number(let x), .number(let y)): return .number(x + y)
        case (.array(let x), .array(let y)): return .array(x + y)
        case (.object(let x), .object(let y)): return .object(x.merging(y) { combine($0, $1) })
        default: return a
        }
    }

    /// `stats.events`: buckets with the same start are one bucket.
    private static func mergeBuckets(_ replies: [JSONValue?]) -> JSONValue {
        var counts: [String: Double] = [:]
        for reply in replies {
            guard case .array(let buckets)? = reply?["buckets"] else { continue }
            for bucket in buckets {
                if let start = bucket["start"]?.string { counts[start, default: 0] += bucket["count"]?.number ?? 0 }
            }
        }
        let merged = counts.sorted { $0.key < $1.key }.map { JSONValue.object(["start": .string($0.key), "count": .number($0.value)]) }
        return .object(["buckets": .array(merged)])
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap(\.string)
    }
}

/// A cross-shard audience cursor: each shard's own cursor (nil once that shard is exhausted) and
/// the total it reported.
struct AudienceCursors {
    struct Shard: Codable, Equatable {
        let cursor: String?
        let total: Int
        enum CodingKeys: String, CodingKey { case cursor = "c", total = "t" }
    }

    let shards: [Shard]

    init(shards: [Shard]) { self.shards = shards }

    init?(_ text: String) {
        guard let data = Data(base64Encoded: text), let shards = try? JSONDecoder().decode([Shard].self, from: data) else {
            return nil
        }
        self.shards = shards
    }

    var text: String { WireCodec.encode(shards).base64EncodedString() }
}
