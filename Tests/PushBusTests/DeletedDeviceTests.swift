import Client
import Foundation
import JSON
import Schema
import Testing

/// A deleted device stays deleted, across every service: whatever it signs is refused (1008 "device
/// deleted"), and no app-wide query lists it or brings it back. The real gateway and all five services.
@Suite("deleted devices (integration)", .serialized)
struct DeletedDeviceTests {
    @Test func aDeletedDeviceIsRefusedEverywhereAndNoAppQueryBringsItBack() throws {
        let stack = try TestStack().start(["registration", "tagging", "badge", "scheduler", "analytics"])
        let client = try stack.client()   // signs as the device whose registration_id a payload names, else as the app
        let id = try client.register(deviceID: "doomed-phone")
        let witness = try client.register(deviceID: "witness-phone")
        func signed(_ command: String, _ fields: [String: JSONValue] = [:], device: String? = nil) throws -> JSONValue {
            try client.json(command, ["app_key": "app1".json, "registration_id": (device ?? id).json].merging(fields) { $1 })
        }
        func app(_ command: String, _ fields: [String: JSONValue]) throws -> JSONValue {
            try client.json(command, ["app_key": "app1".json].merging(fields) { $1 })
        }
        func ids(_ reply: JSONValue) -> [String] {
            guard case .array(let values)? = reply["registration_ids"] else { return [] }
            return values.compactMap(\.string)
        }
        let everything: [(String, [String: JSONValue])] = [
            ("tags.add", ["tags": .array(["vip".json])]),
            ("alias.set", ["alias": "owner".json]),
            ("channel.subscribe", ["channel": "news".json]),
            ("badge.set", ["value": .number(5)]),
            ("local.add", ["identifier": "wake".json, "content": .object(["body": "hi".json]),
                           "trigger": .object(["time_interval": .number(3600)])]),
            ("ma.start", ["device_id": "doomed-phone".json]),
        ]
        for device in [id, witness] {
            for (command, fields) in everything {
                #expect(try signed(command, fields, device: device).code == 0, "\(command) before the deletion")
            }
        }
        #expect(try app("badge.apply", ["registration_ids": .array([id.json]), "badge": "+1".json, "msg_id": "m0".json])["values"]
                == .object([id: .number(6)]))

        #expect(try signed("device.delete").code == 0)
        // device.deleted travels registration → bus → each service; each refuses the device once it applied it.
        let reads: [(String, [String: JSONValue])] = [("device.get", [:]), ("tags.get", [:]), ("badge.get", [:]),
                                                     ("local.find", ["delivered": .bool(false)]), ("stats.report", ["kind": "opened".json, "msg_id": "m0".json])]
        for (command, fields) in reads {
            #expect(try eventually(30) { try signed(command, fields).code == 1008 }, "\(command) after the deletion")
        }
        for (command, fields) in everything + [("device.get", [:])] {
            let refused = try signed(command, fields)
            #expect(refused.code == 1008, "\(command): \(refused)")
            #expect(refused["message"] == "device deleted".json, "\(command)")
        }

        // No app-signed path lists it or brings it back. The gateway refuses the device's proofs as
        // soon as it sees the delete on the bus; wait until tagging has applied it too.
        #expect(try eventually(30) { ids(try app("audience.resolve", ["tag": .array(["vip".json])])) == [witness] })
        for query: [String: JSONValue] in [["tag": .array(["vip".json])], ["alias": .array(["owner".json])],
                                           ["registration_id": .array([id.json, witness.json])]] {
            let audience = try app("audience.resolve", query)
            #expect(ids(audience) == [witness], "\(query): \(audience)")
        }
        #expect(ids(try app("alias.lookup", ["alias": "owner".json])) == [witness])
        #expect(try app("tags.count", ["tags": .array(["vip".json])])["counts"] == .object(["vip": .number(1)]))
        let applied = try app("badge.apply", ["registration_ids": .array([id.json]), "badge": "+1".json, "msg_id": "m1".json])
        #expect(applied["values"] == .object([:]))
        #expect(applied["unknown"] == .array([id.json]))
        #expect(try signed("badge.get").code == 1008, "badge.apply created nothing")
        #expect(try signed("tags.get", device: witness)["tags"] == .array(["vip".json]), "the other device is untouched")
    }
}
