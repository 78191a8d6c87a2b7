import Credentials
import Foundation
import JSON
import Schema

/// Queries that span every shard of a service: how the gateway splits the request and merges the
/// replies. Audiences, which page, are `AudiencePaging`'s.
enum ShardGather {
    /// One payload per shard; nil where a shard has nothing to do for this request.
    static func split(_ command: Command, payload: Data, count: Int) -> [Data?] {
        guard case .object(var fields)? = try? JSONTreeDecoder().decode(JSONValue.self, from: payload) else {
            // Malformed: let shard 0 answer it with the proper error.
            return [payload] + Array(repeating: nil, count: count - 1)
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
            // Only the shards that own IDs are asked; with no IDs at all, shard 0 answers as an
            // unsharded service would.
            let owners = parts.contains { !$0.isEmpty }
            return parts.enumerated().map { shard, ids in
                guard !ids.isEmpty || (!owners && shard == 0) else { return nil }
                fields["registration_ids"] = .array(ids)
                return WireCodec.encode(JSONValue.object(fields))
            }
        }
        return Array(repeating: payload, count: count)
    }

    /// The shards' replies as JSON (nil where a shard was not asked), or the reply to send instead:
    /// the first error, or an internal error when a shard answered garbage.
    static func decode(_ replies: [Data?], seq: Int?) -> Result<[JSONValue?], FirstFailure> {
        var values: [JSONValue?] = []
        for reply in replies {
            guard let reply else {
                values.append(nil)
                continue
            }
            guard let value = try? JSONTreeDecoder().decode(JSONValue.self, from: reply), let code = value["code"]?.number else {
                return .failure(FirstFailure(reply: WireCodec.errorReply(CommandError(.internalError, "a shard answered garbage"), seq: seq)))
            }
            if code != 0 { return .failure(FirstFailure(reply: reply)) }
            values.append(value)
        }
        return .success(values)
    }

    /// A shard's failure, which answers the whole query.
    struct FirstFailure: Error {
        let reply: Data
    }

    /// Merges the shards' replies (nil where a shard was not asked); the first error wins.
    static func merge(_ command: Command, replies: [Data?], seq: Int?) -> Data {
        let values: [JSONValue?]
        switch decode(replies, seq: seq) {
        case .success(let decoded): values = decoded
        case .failure(let failure): return failure.reply
        }
        switch command {
        case .tagsList: return reply(.object(["tags": .array(Set(values.flatMap { strings($0?["tags"]) }).sorted().map(JSONValue.string))]), seq: seq)
        case .statsEvents: return reply(mergeBuckets(values), seq: seq)
        default: return reply(values.compactMap { $0 }.reduce(JSONValue.object([:]), combine), seq: seq)
        }
    }

    /// A merged success reply: `merged`'s fields with `code` 0 and `seq`; nulls are dropped but for
    /// the fields that write them out (`next_cursor`, `tags`).
    static func reply(_ merged: JSONValue, seq: Int?) -> Data {
        guard case .object(var fields) = merged else { return WireCodec.encode(merged) }
        fields["code"] = .number(0)
        fields["seq"] = seq.map { .number(Double($0)) }
        return WireCodec.encode(JSONValue.object(fields.dictionary.filter { $0.value != .null || $0.key == "next_cursor" || $0.key == "tags" }))
    }

    // MARK: generic merging

    /// Adds numbers, concatenates arrays, merges objects key by key; anything else keeps the first.
    private static func combine(_ a: JSONValue, _ b: JSONValue) -> JSONValue {
        switch (a, b) {
        case (.number(let x), .number(let y)): return .number(x.value + y.value)
        case (.array(let x), .array(let y)): return .array(x + y)
        case (.object(let x), .object(let y)): return .object(x.dictionary.merging(y.dictionary) { combine($0, $1) })
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
