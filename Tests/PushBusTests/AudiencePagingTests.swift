import Foundation
import JSON
import Schema
import Testing
@testable import GatewayKit

/// Paging a sharded audience against shards that page like tagging (a full page carries a cursor):
/// every page within its limit, every ID once, the total of all shards on every page.
@Suite("audience paging across shards")
struct AudiencePagingTests {
    /// A shard holding `ids` in order, answering like tagging: up to `limit` after the cursor, and a
    /// next cursor whenever the page came back full.
    func answer(_ ids: [String], _ question: Data) -> JSONValue {
        let payload = try! JSONDecoder().decode(JSONValue.self, from: question)
        let start = payload["cursor"]?.string.flatMap { Int($0.dropFirst(2)) } ?? 0
        let limit = Int(payload["limit"]?.number ?? 1000)
        let page = Array(ids.dropFirst(start).prefix(limit))
        return .object(["code": .number(0), "registration_ids": .array(page.map(JSONValue.string)), "total": .number(Double(ids.count)),
                        "next_cursor": page.count == limit ? .string("i:\(start + limit)") : .null])
    }

    /// One page through `AudiencePaging`, and how many rounds it took.
    func resolve(_ shards: [[String]], limit: Int?, cursor: JSONValue?) throws -> (page: JSONValue, rounds: Int) {
        var payload: [String: JSONValue] = ["app_key": "a1".json, "tag": .array(["vip".json])]
        payload["limit"] = limit.map { .number(Double($0)) }
        payload["cursor"] = cursor
        guard case .paged(var paging) = AudiencePaging.route(WireCodec.encode(JSONValue.object(payload)), count: shards.count) else {
            throw StackError("not paged")
        }
        var step = paging.start()
        var rounds = 0
        while case .ask(let parts) = step {
            rounds += 1
            step = paging.take(parts.enumerated().map { shard, part in part.map { answer(shards[shard], $0) } })
        }
        guard case .answer(let page) = step else { throw StackError("\(step)") }
        return (page, rounds)
    }

    func ids(_ page: JSONValue) -> [String] {
        guard case .array(let items)? = page["registration_ids"] else { return [] }
        return items.compactMap(\.string)
    }

    @Test(arguments: [1, 2, 3, 4, 1000])
    func pagesStayWithinTheLimitAndVisitEveryIDOnce(limit: Int) throws {
        let layouts: [[Int]] = [[5, 3], [0, 4], [4, 0], [1, 1], [3, 3], [2, 0, 5], [0, 0]]
        for sizes in layouts {
            let shards = sizes.enumerated().map { shard, size in (0..<size).map { "s\(shard)-\($0)" } }
            var seen: [String] = []
            var cursor: JSONValue?
            var pages = 0
            repeat {
                let (page, rounds) = try resolve(shards, limit: limit, cursor: cursor)
                #expect(ids(page).count <= limit, "\(sizes) limit \(limit): \(page)")
                #expect(page["total"] == .number(Double(sizes.reduce(0, +))))
                #expect(rounds <= 2 * sizes.count)
                seen += ids(page)
                cursor = page["next_cursor"] == .null ? nil : page["next_cursor"]
                pages += 1
            } while cursor != nil && pages < 100
            #expect(seen == shards.flatMap { $0 }, "\(sizes) limit \(limit): every ID once, in shard order")
            #expect(pages <= seen.count / limit + sizes.count + 1, "\(sizes) limit \(limit): \(pages) pages")
        }
    }

    @Test func aShardReturningMoreThanAskedFailsThePageRatherThanLooping() throws {
        guard case .paged(var paging) = AudiencePaging.route(Data(#"{"app_key":"a1","tag":["t"],"limit":2}"#.utf8), count: 2) else {
            throw StackError("not paged")
        }
        let flood = JSONValue.object(["code": .number(0), "registration_ids": .array((0..<5).map { "x\($0)".json }),
                                      "total": .number(5), "next_cursor": "c".json])
        guard case .ask = paging.start() else { throw StackError("no first round") }
        guard case .ask(let again) = paging.take([flood, flood]) else { throw StackError("no second round") }
        #expect(again.map { $0 != nil } == [true, false], "shard 0 asked again for the page's room")
        guard case .fail(let error) = paging.take([flood, nil]) else { throw StackError("no failure") }
        #expect(error.code == .internalError)
    }

    @Test func whatCannotBePagedGoesToShardZeroAloneForItsError() {
        let cursor = AudienceCursors(shards: [.fresh, .fresh, .fresh]).text
        for payload in [#"[1]"#, #"{"app_key":"a1","limit":0}"#, #"{"app_key":"a1","limit":"5"}"#, #"{"app_key":"a1","limit":2.5}"#,
                        #"{"app_key":"a1","cursor":7}"#, #"{"app_key":"a1","cursor":"not ours"}"#, #"{"app_key":"a1","cursor":"\#(cursor)"}"#] {
            guard case .all(let parts) = AudiencePaging.route(Data(payload.utf8), count: 2) else {
                Issue.record("\(payload) was paged")
                continue
            }
            #expect(parts.map { $0 != nil } == [true, false], "\(payload)")
        }
    }
}
