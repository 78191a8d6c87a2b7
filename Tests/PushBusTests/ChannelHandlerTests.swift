import Caches
import Credentials
import Foundation
import JSON
import Schema
import Testing
@testable import ChannelKit

/// A channel shard's handler on a temporary database, no sockets: what it stores, what it hands a
/// connection (recorded by the outlet) and what it answers.
@Suite("channel handler")
struct ChannelHandlerTests {
    /// What the shard handed to connections, by channel process.
    final class RecordingOutlet: LiveOutlet, @unchecked Sendable {
        var pushes: [(host: Int, push: LivePush)] = []
        func push(_ push: LivePush, toHost host: Int) { pushes.append((host, push)) }
        var sent: [String] { pushes.flatMap { $0.push.sends.flatMap { $0.entries.map(\.msgID) } } }
    }

    let clock = ManualClock()
    let outlet = RecordingOutlet()
    let handler: ChannelHandler
    static let here = LiveConnection(host: 0, boot: "boot-1", connection: 7)

    init() throws {
        let clock = self.clock
        handler = try ChannelHandler(path: "\(TestPaths.temporaryDirectory("channel"))/channel.sqlite", outlet: outlet, clock: { clock.now })
    }

    func deliver(_ msgID: String, to ids: [String], kind: LiveKind = .message, target: [String]? = nil, ttl: Double = 3600) -> JSONValue {
        reply(handler, "live.deliver", ["app_key": "app1".json, "msg_id": msgID.json, "kind": kind.rawValue.json,
                                        "content": .object(["msg_content": "hi".json]), "target": target.map { .array($0.map(\.json)) } ?? .null,
                                        "expires_at": .number(ttl == 0 ? 0 : clock.now + ttl), "registration_ids": .array(ids.map(\.json))])
    }

    func attach(_ id: String, proof: String = RandomKey.testProof(), at: LiveConnection = here) -> JSONValue {
        reply(handler, "live.attach", ["app_key": "app1".json, "registration_id": id.json, "proof": proof.json,
                                       "hello_ts": .number(clock.now), "at": try! JSONTreeDecoder().decode(JSONValue.self, from: WireCodec.encode(at))])
    }

    func pending(_ answer: JSONValue) -> [String] {
        guard case .array(let entries)? = answer["pending"] else { return [] }
        return entries.compactMap { $0["msg_id"]?.string }
    }

    @Test func aBacklogComesInMsgIDOrderWhateverOrderItWasStoredIn() {
        _ = deliver("1000000010", to: ["r1"])
        _ = deliver("1000000009", to: ["r1"])
        _ = deliver("999999999", to: ["r1"])
        #expect(pending(attach("r1")) == ["999999999", "1000000009", "1000000010"])
        #expect(outlet.pushes.isEmpty, "nothing is pushed to a device that was not connected")
    }

    @Test func aConnectedDeviceGetsItAtOnceAndAnAcknowledgedMessageNeverAgain() {
        _ = attach("r1")
        #expect(deliver("1000000001", to: ["r1"])["devices"]?["r1"]?.string == "queued")
        #expect(outlet.sent == ["1000000001"] && outlet.pushes.first?.host == 0)
        let acked = reply(handler, "live.ack", ["app_key": "app1".json, "registration_ids": .array(["r1".json]), "msg_ids": .array(["1000000001".json])])
        #expect(acked["first"]?["r1"] == .array(["1000000001".json]))
        let again = reply(handler, "live.ack", ["app_key": "app1".json, "registration_ids": .array(["r1".json]), "msg_ids": .array(["1000000001".json])])
        #expect(again["first"] == .object([:]), "a second acknowledgement counts nothing")
        #expect(pending(attach("r1", at: LiveConnection(host: 0, boot: "boot-1", connection: 8))).isEmpty)
        #expect(deliver("1000000001", to: ["r1"])["devices"]?["r1"]?.string == "queued")
        #expect(outlet.sent == ["1000000001"], "a retried delivery of a stored message is not sent twice")
    }

    @Test func timeToLiveZeroSkipsADeviceNotConnectedAndAnExpiredMessageIsNotSent() {
        #expect(deliver("1000000001", to: ["r1"], ttl: 0)["devices"]?["r1"]?.string == "offline")
        _ = deliver("1000000002", to: ["r1"], ttl: 10)
        clock.advance(11)
        #expect(pending(attach("r1")).isEmpty)
    }

    @Test func anInAppMessageWaitsForItsPageAndIsSentOnce() {
        _ = attach("r1")
        _ = deliver("1000000001", to: ["r1"], kind: .inapp, target: ["home"])
        #expect(outlet.sent.isEmpty)
        _ = reply(handler, "page.enter", ["app_key": "app1".json, "registration_id": "r1".json, "page": "cart".json])
        #expect(outlet.sent.isEmpty)
        _ = reply(handler, "page.enter", ["app_key": "app1".json, "registration_id": "r1".json, "page": "home".json])
        #expect(outlet.sent == ["1000000001"])
        _ = reply(handler, "page.enter", ["app_key": "app1".json, "registration_id": "r1".json, "page": "home".json])
        #expect(outlet.sent == ["1000000001"], "shown once")
        #expect(pending(attach("r1", at: LiveConnection(host: 0, boot: "boot-1", connection: 9))).isEmpty)
    }

    @Test func aReplayedHelloOrADeletedDeviceIsRefused() throws {
        #expect(attach("r1", proof: "aa11")["code"]?.number == 0)
        #expect(attach("r1", proof: "aa11")["code"]?.number == 6017)
        try handler.storage.store.write { db in try db.run("INSERT INTO tombstones (registration_id, deleted_at) VALUES ('r2', 0)") }
        #expect(attach("r2")["code"]?.number == 1008)
        #expect(deliver("1000000001", to: ["r2"])["devices"]?["r2"]?.string == "unknown")
    }

    @Test func aNewerConnectionClosesTheOlderOneWhereverItIs() {
        _ = attach("r1", at: LiveConnection(host: 1, boot: "b", connection: 1))
        _ = attach("r1", at: Self.here)
        let close = outlet.pushes.first { !$0.push.closes.isEmpty }
        #expect(close?.host == 1 && close?.push.closes.first?.code == 4001)
    }

    @Test func statusShowsOnlineDevicesOfTheAppAndHidesOtherAppsDevices() {
        _ = attach("r1")
        let mine = reply(handler, "devices.status", ["app_key": "app1".json, "registration_ids": .array(["r1".json])])
        #expect(mine["devices"]?["r1"]?["online"] == .bool(true))
        let theirs = reply(handler, "devices.status", ["app_key": "app2".json, "registration_ids": .array(["r1".json])])
        #expect(theirs["devices"]?["r1"]?["online"] == .bool(false) && theirs["devices"]?["r1"]?["last_online_time"] == nil)
        _ = reply(handler, "live.detach", ["app_key": "app1".json, "registration_id": "r1".json,
                                           "at": try! JSONTreeDecoder().decode(JSONValue.self, from: WireCodec.encode(Self.here))])
        let gone = reply(handler, "devices.status", ["app_key": "app1".json, "registration_ids": .array(["r1".json])])
        #expect(gone["devices"]?["r1"]?["online"] == .bool(false) && gone["devices"]?["r1"]?["last_online_time"]?.string != nil)
    }

    @Test func aQueueTakesFromTheFrontInOrder() {
        var queue = FirstInFirstOut<Int>()
        for n in 0..<3000 { queue.append(n) }
        var taken: [Int] = []
        while !queue.isEmpty { taken += queue.take(7) }
        #expect(taken == Array(0..<3000))
        #expect(queue.take(5).isEmpty)
    }
}

extension RandomKey {
    /// A fresh proof signature for a hello the test makes up.
    static func testProof() -> String { hex(bytes: 32) }
}
