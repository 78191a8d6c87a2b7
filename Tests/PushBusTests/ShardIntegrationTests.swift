import Client
import Credentials
import Foundation
import JSON
import Schema
import Testing
import ZeroMQ

/// `pushbus --shards registration=2,tagging=2`: the gateway routes by a stable hash of the
/// registration ID and merges app-wide queries; data stays on its shard across restarts.
@Suite("shards (integration)", .serialized)
struct ShardIntegrationTests {
    func launch(_ directory: String, base: Int, shards: String, services: String = "registration,tagging") throws -> RunningProcess {
        let launcher = try RunningProcess(TestPaths.executable("pushbus"),
                                          ["--base-port", String(base), "--data-dir", "\(directory)/data", "--shards", shards,
                                           "--services", services],
                                          logDirectory: directory)
        let deadline = Date().addingTimeInterval(60)
        while !launcher.output.contains("pushbus: ready") && launcher.isRunning && Date() < deadline { usleep(50_000) }
        return launcher
    }

    func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap(\.string)
    }

    /// The gateway picks a device's shard: a request sent straight to another shard could register
    /// an install a second time, or replay a proof that shard's ledger never saw. Only internal
    /// commands (`events.fetch`) name a shard, and a fetch names its publisher.
    @Test func clientsCannotAddressOneShardOfAService() throws {
        let directory = TestPaths.temporaryDirectory("shards")
        let base = Ports.freeBase()
        let launcher = try launch(directory, base: base, shards: "registration=2,tagging=2")
        defer { launcher.terminate() }
        let context = try Context()
        let client = try MajordomoClient(endpoint: "tcp://127.0.0.1:\(base)", context: context)
        client.signer = Signer(secrets: try Secrets.load(directory: "\(directory)/data"))
        let id = try client.register(deviceID: "victim-phone")
        let owner = ShardHash.shard(of: id, count: 2)
        let other = 1 - owner

        let raw = try MajordomoClient(endpoint: "tcp://127.0.0.1:\(base)", context: context)
        let register = [Data("device.register".utf8), Data(#"{"app_key":"app1","platform":"ios","device_id":"victim-phone"}"#.utf8)]
        for shard in [0, 1] {
            let reply = try JSONDecoder().decode(JSONValue.self, from: raw.request("registration/\(shard)", register)[0])
            #expect(reply.code == 6017 && reply["registration_id"] == nil, "registration/\(shard): \(reply)")
        }
        let tagsAdd = client.signer!.sign(command: "tags.add", payload: Data(#"{"app_key":"app1","registration_id":"\#(id)","tags":["x"]}"#.utf8))
        let misrouted = try JSONDecoder().decode(JSONValue.self, from: raw.request("tagging/\(other)", tagsAdd)[0])
        #expect(misrouted.code == 6017, "\(misrouted)")
        let routed = client.signer!.sign(command: "tags.add", payload: Data(#"{"app_key":"app1","registration_id":"\#(id)","tags":["x"]}"#.utf8))
        #expect(try JSONDecoder().decode(JSONValue.self, from: raw.request("tagging", routed)[0]).code == 0, "sent to the service, it is routed")

        let fetch = WireCodec.encode(EventFetch(publisher: "registration/\(owner)", after: 0))
        let asked = try JSONDecoder().decode(JSONValue.self, from: client.request("registration/\(owner)", [Data(EventFetch.command.utf8), fetch])[0])
        #expect(asked.code == 0, "a fetch names a shard: \(asked)")
        let elsewhere = try JSONDecoder().decode(JSONValue.self, from: client.request("registration/\(other)", [Data(EventFetch.command.utf8), fetch])[0])
        #expect(elsewhere.code == 6017, "a fetch for one publisher is refused by another: \(elsewhere)")
    }

    @Test func shardedServicesRouteMergeAndKeepTheirData() throws {
        let directory = TestPaths.temporaryDirectory("shards")
        let base = Ports.freeBase()
        var launcher = try launch(directory, base: base, shards: "registration=2,tagging=2")
        #expect(launcher.output.contains("pushbus: ready"), "\(launcher.output)")
        let client = try MajordomoClient(endpoint: "tcp://127.0.0.1:\(base)", context: try Context())
        client.signer = Signer(secrets: try Secrets.load(directory: "\(directory)/data"))
        #expect(try client.serviceStatus("tagging") == "200")
        #expect(try client.serviceStatus("tagging/1") == "200")

        var ids: [String] = []
        for n in 0..<40 {
            let id = try client.register(deviceID: "phone-\(n)")
            ids.append(id)
            let tags: [JSONValue] = ["all".json, (n % 2 == 0 ? "even" : "odd").json]
            #expect(try client.json("tags.add", ["app_key": "app1".json, "registration_id": id.json, "tags": .array(tags)]).code == 0)
        }
        let shardsUsed = Set(ids.map { ShardHash.shard(of: $0, count: 2) })
        #expect(shardsUsed == [0, 1], "devices spread over both shards")
        #expect(try client.register(deviceID: "phone-7", registrationID: ids[7]) == ids[7], "the same install reaches the same shard and ID")
        let stored = try client.json("device.get", ["app_key": "app1".json, "registration_id": ids[3].json])
        #expect(stored["device"]?["device_id"] == "phone-3".json)

        // An audience paged across both shards: every device once, the total from both.
        var seen: [String] = []
        var cursor: JSONValue?
        var pages = 0
        repeat {
            var payload: [String: JSONValue] = ["app_key": "app1".json, "tag": .array(["all".json]), "limit": .number(6)]
            if let cursor { payload["cursor"] = cursor }
            let page = try client.json("audience.resolve", payload)
            #expect(page.code == 0, "\(page)")
            #expect(page["total"] == .number(40))
            seen += strings(page["registration_ids"])
            cursor = page["next_cursor"] == .null ? nil : page["next_cursor"]
            pages += 1
        } while cursor != nil && pages < 50
        #expect(seen.sorted() == ids.sorted())
        #expect(strings(try client.json("tags.list", ["app_key": "app1".json])["tags"]) == ["all", "even", "odd"])
        #expect(try client.json("tags.count", ["app_key": "app1".json, "tags": .array(["even".json, "all".json])])["counts"]
                == .object(["even": .number(20), "all": .number(40)]))
        _ = try client.json("alias.set", ["app_key": "app1".json, "registration_id": ids[0].json, "alias": "pair".json])
        _ = try client.json("alias.set", ["app_key": "app1".json, "registration_id": ids[1].json, "alias": "pair".json])
        #expect(Set(strings(try client.json("alias.lookup", ["app_key": "app1".json, "alias": "pair".json])["registration_ids"]))
                == [ids[0], ids[1]])

        // Each shard keeps its own database, and finds it again after a restart.
        #expect(launcher.terminate(waiting: 15) == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: "\(directory)/data")
        #expect(Set(files.filter { $0.hasSuffix(".sqlite") }) ==
                ["registration-0-of-2.sqlite", "registration-1-of-2.sqlite", "tagging-0-of-2.sqlite", "tagging-1-of-2.sqlite"])
        launcher = try launch(directory, base: base, shards: "registration=2,tagging=2")
        defer { launcher.terminate() }
        let again = try MajordomoClient(endpoint: "tcp://127.0.0.1:\(base)", context: try Context())
        again.signer = Signer(secrets: try Secrets.load(directory: "\(directory)/data"))
        for n in [0, 5, 11, 38] {
            #expect(try again.register(deviceID: "phone-\(n)", registrationID: ids[n]) == ids[n])
            #expect(Set(strings(try again.json("tags.get", ["app_key": "app1".json, "registration_id": ids[n].json])["tags"]))
                    == ["all", n % 2 == 0 ? "even" : "odd"])
        }
    }

    /// A client of a stack the launcher started, signing as the operator.
    func client(_ directory: String, base: Int) throws -> MajordomoClient {
        let client = try MajordomoClient(endpoint: "tcp://127.0.0.1:\(base)", context: try Context())
        client.signer = Signer(secrets: try Secrets.load(directory: "\(directory)/data"))
        return client
    }

    @Test func singleDeviceBadgeAppliesOnTwoShardsAnswer0AndApplyOnce() throws {
        let directory = TestPaths.temporaryDirectory("shards")
        let base = Ports.freeBase()
        let launcher = try launch(directory, base: base, shards: "badge=2", services: "registration,badge")
        defer { launcher.terminate() }
        #expect(launcher.output.contains("pushbus: ready"), "\(launcher.output)")
        let client = try client(directory, base: base)
        let ids = try client.registerKnownToBadge(24)
        #expect(Set(ids.map { ShardHash.shard(of: $0, count: 2) }) == [0, 1], "devices on both shards")

        for (n, id) in ids.enumerated() {
            let own = try client.badgeApply([id], "+1", msgID: "own-\(n)")
            #expect(own.code == 0 && own.badge(id) == 1, "shard \(ShardHash.shard(of: id, count: 2)): \(own)")
            for _ in 0..<2 {
                let shared = try client.badgeApply([id], "+2", msgID: "shared")
                #expect(shared.code == 0 && shared.badge(id) == 3, "a retried push changes nothing: \(shared)")
            }
        }
        for id in ids {
            #expect(try client.badgeValue(id) == 3, "each push applied once")
        }
        let none = try client.json("badge.apply", ["app_key": "app1".json, "registration_ids": .array([]), "badge": "+1".json,
                                                   "msg_id": "none".json])
        #expect(none.code == 6001, "no IDs at all is answered as unsharded: \(none)")
    }

    @Test func audiencePagesOnTwoShardsKeepTheirLimitAndVisitEveryDeviceOnce() throws {
        let directory = TestPaths.temporaryDirectory("shards")
        let base = Ports.freeBase()
        let launcher = try launch(directory, base: base, shards: "tagging=2")
        defer { launcher.terminate() }
        #expect(launcher.output.contains("pushbus: ready"), "\(launcher.output)")
        let client = try client(directory, base: base)
        var ids: [String] = []
        for n in 0..<13 {
            let id = try client.register(deviceID: "phone-\(n)")
            #expect(try client.json("tags.add", ["app_key": "app1".json, "registration_id": id.json, "tags": .array(["all".json])]).code == 0)
            ids.append(id)
        }
        #expect(Set(ids.map { ShardHash.shard(of: $0, count: 2) }) == [0, 1], "devices on both shards")

        for limit in [1, 2, 3] {
            var seen: [String] = []
            var cursor: JSONValue?
            var pages = 0
            repeat {
                var payload: [String: JSONValue] = ["app_key": "app1".json, "tag": .array(["all".json]), "limit": .number(Double(limit))]
                payload["cursor"] = cursor
                let page = try client.json("audience.resolve", payload)
                #expect(page.code == 0, "\(page)")
                #expect(strings(page["registration_ids"]).count <= limit, "limit \(limit): \(page)")
                #expect(page["total"] == .number(13))
                seen += strings(page["registration_ids"])
                cursor = page["next_cursor"] == .null ? nil : page["next_cursor"]
                pages += 1
            } while cursor != nil && pages < 40
            #expect(seen.sorted() == ids.sorted(), "limit \(limit): every device exactly once")
        }
    }

    @Test func aShardCountThatDoesNotMatchTheDataIsRefused() throws {
        let directory = TestPaths.temporaryDirectory("shards")
        let base = Ports.freeBase()
        let first = try launch(directory, base: base, shards: "tagging=2")
        #expect(first.output.contains("pushbus: ready"))
        #expect(first.terminate(waiting: 15) == 0)
        let second = try RunningProcess(TestPaths.executable("pushbus"),
                                        ["--base-port", String(base), "--data-dir", "\(directory)/data", "--shards", "tagging=3",
                                         "--services", "registration,tagging"],
                                        logDirectory: directory)
        #expect(second.waitForExit(30) == 1)
        #expect(second.output.contains("tagging data for 2 shard(s)"), "\(second.output)")
        #expect(second.output.contains("--shards tagging=2"))
    }
}
