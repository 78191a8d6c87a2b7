import Foundation
import JSON
import Schema
import Testing
@testable import GatewayKit

/// How the gateway splits an app-wide query over shards and merges the replies.
@Suite("shard gather")
struct ShardGatherTests {
    func badgeApply(_ ids: [String]) -> Data {
        WireCodec.encode(JSONValue.object(["app_key": "a1".json, "registration_ids": .array(ids.map(\.json)), "badge": "+1".json,
                                           "msg_id": "m1".json]))
    }

    @Test func onlyTheShardsOwningIDsAreAsked() throws {
        let id = (0..<100).map { "device-\($0)" }.first { ShardHash.shard(of: $0, count: 2) == 1 }!
        #expect(ShardGather.split(.badgeApply, payload: badgeApply([id]), count: 2).map { $0 != nil } == [false, true],
                "a device of shard 1 alone: shard 0 has nothing to do")
        let part = try #require(ShardGather.split(.badgeApply, payload: badgeApply([id]), count: 2)[1])
        #expect(try JSONDecoder().decode(JSONValue.self, from: part)["registration_ids"] == .array([id.json]))
        #expect(ShardGather.split(.badgeApply, payload: badgeApply([]), count: 2).map { $0 != nil } == [true, false],
                "no IDs at all: shard 0 answers, as an unsharded service would")
    }

    @Test func theFirstErrorWins() {
        let ok = Data(#"{"code":0,"values":{"a":1}}"#.utf8)
        let refused = Data(#"{"code":6001,"message":"registration_ids is empty"}"#.utf8)
        #expect(ShardGather.merge(.badgeApply, replies: [refused, ok], seq: nil) == refused)
        let merged = try? JSONDecoder().decode(JSONValue.self, from: ShardGather.merge(.badgeApply, replies: [nil, ok], seq: 3))
        #expect(merged == .object(["code": .number(0), "seq": .number(3), "values": .object(["a": .number(1)])]), "a shard not asked is left out")
    }
}
