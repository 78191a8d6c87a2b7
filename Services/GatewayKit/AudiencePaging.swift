import Foundation
import JSON
import Schema

/// One page of `audience.resolve` over a sharded service, read as if the shards' audiences were one
/// list in shard order. A page asks the shards it needs (every shard on the first page, for the
/// total; later the first shard not exhausted, then the next while the page has room), keeps at most
/// `limit` IDs, and asks a shard that returned more than the page had room for again for just that
/// room. So each shard's own cursor moves only past the IDs the page returned, and paging with the
/// cursor visits every ID once. Held by the broker's gather for the request, one round at a time.
struct AudiencePaging: Equatable {
    /// What a tagging shard returns when the request gives no `limit`.
    static let defaultLimit = 1000

    enum Step: Equatable {
        /// Questions for this round, one per shard (nil where a shard is not asked).
        case ask([Data?])
        /// The merged page: `registration_ids`, `total`, `next_cursor`.
        case answer(JSONValue)
        /// A shard broke the protocol (more IDs than it was asked for).
        case fail(CommandError)
    }

    let limit: Int
    private let fields: JSONObject
    private(set) var cursors: AudienceCursors
    private let isFirstPage: Bool
    private(set) var ids: [String] = []
    /// Shards asked again for the page's remaining room; each answer must fit.
    private var refetched: Set<Int> = []

    /// How `payload` goes to `count` shards: paged, or to shard 0 alone when it cannot be paged (not
    /// an object, a `limit` that is not a positive integer, a cursor the gateway did not give out),
    /// so that the shard refuses it with the proper error.
    static func route(_ payload: Data, count: Int) -> ShardRoute {
        let alone = { (part: Data) in ShardRoute.all(parts: [part] + Array(repeating: nil, count: count - 1)) }
        guard case .object(var fields)? = try? JSONTreeDecoder().decode(JSONValue.self, from: payload) else { return alone(payload) }
        var limit = defaultLimit
        if let given = fields["limit"], given != .null {
            guard let number = given.number, let exact = Int(exactly: number), exact >= 1 else { return alone(payload) }
            limit = exact
        }
        var cursors = AudienceCursors(shards: Array(repeating: .fresh, count: count))
        switch fields["cursor"] {
        case nil, .null?:
            break
        case .string(let text)?:
            guard let given = AudienceCursors(text), given.shards.count == count else {
                fields["cursor"] = .string("not a gateway cursor")
                return alone(WireCodec.encode(JSONValue.object(fields)))
            }
            cursors = given
        default:
            return alone(payload)
        }
        return .paged(AudiencePaging(fields: fields, limit: limit, cursors: cursors))
    }

    private init(fields: JSONObject, limit: Int, cursors: AudienceCursors) {
        self.fields = fields
        self.limit = limit
        self.cursors = cursors
        isFirstPage = fields["cursor"]?.string == nil
    }

    /// The first round: every shard on the first page, else the first shard not exhausted.
    func start() -> Step {
        if isFirstPage {
            return .ask(cursors.shards.indices.map { question($0, limit: limit) })
        }
        return next(after: -1) ?? .answer(page)
    }

    /// Takes one round's replies (index = shard, nil where not asked; every one a success) and
    /// says what to do next.
    mutating func take(_ replies: [JSONValue?]) -> Step {
        var overflow: (shard: Int, room: Int)?
        var last = -1
        for (shard, reply) in replies.enumerated() {
            guard let reply else { continue }
            last = shard
            if isFirstPage { cursors.shards[shard].total = Int(reply["total"]?.number ?? 0) }
            guard overflow == nil else { continue }
            let returned = Self.strings(reply["registration_ids"])
            let room = limit - ids.count
            if returned.count <= room {
                ids += returned
                cursors.shards[shard].cursor = reply["next_cursor"]?.string
            } else if room > 0 {
                overflow = (shard, room)
            }
        }
        if let overflow {
            guard refetched.insert(overflow.shard).inserted else {
                return .fail(CommandError(.internalError, "a shard returned more IDs than it was asked for"))
            }
            var round = Array(repeating: Data?.none, count: cursors.shards.count)
            round[overflow.shard] = question(overflow.shard, limit: overflow.room)
            return .ask(round)
        }
        return next(after: last) ?? .answer(page)
    }

    /// The next shard after `shard` that may still fill the page, asked for the room left.
    private func next(after shard: Int) -> Step? {
        let room = limit - ids.count
        guard room > 0, let next = cursors.shards.indices.first(where: { $0 > shard && !cursors.shards[$0].isExhausted }) else {
            return nil
        }
        var round = Array(repeating: Data?.none, count: cursors.shards.count)
        round[next] = question(next, limit: room)
        return .ask(round)
    }

    private func question(_ shard: Int, limit: Int) -> Data? {
        guard let cursor = cursors.shards[shard].cursor else { return nil }
        var part = fields
        part["limit"] = .number(Double(limit))
        part["cursor"] = cursor.isEmpty ? nil : .string(cursor)
        return WireCodec.encode(JSONValue.object(part))
    }

    private var page: JSONValue {
        let done = cursors.shards.allSatisfy(\.isExhausted)
        return .object(["registration_ids": .array(ids.map(JSONValue.string)),
                        "total": .number(Double(cursors.shards.reduce(0) { $0 + $1.total })),
                        "next_cursor": done ? .null : .string(cursors.text)])
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap(\.string)
    }
}
