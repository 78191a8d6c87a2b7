import Client
import Majordomo
import ZeroMQ
import Foundation
import JSON
import Schema

/// The whole sending path on real processes: gateway, registration, tagging, badge, analytics,
/// push and an apns sender pointed at the APNs stand-in; one app with the stand-in's provider key.
final class PushStack: @unchecked Sendable {
    let stack: TestStack
    let apns: ApnsStandIn
    let client: MajordomoClient
    let appKey: String

    init(appKey: String = "pushapp", pushFlags: [String] = [], apnsFlags: [String] = [],
         services: [String] = ["registration", "tagging", "badge", "analytics"], gatewayFlags: [String] = []) throws {
        apns = try ApnsStandIn()
        stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "2000"] + gatewayFlags).start(services)
        try stack.startService("push", extra: pushFlags)
        try stack.startService("apns", extra: apns.senderFlags + apnsFlags)
        client = try stack.client()
        self.appKey = appKey
        _ = try call("app.create", ["name": .string(appKey), "app_key": .string(appKey)])
        let saved = try call("apns.credentials", ["app_key": .string(appKey), "team_id": .string(ApnsStandIn.teamID),
                                                  "key_id": .string(ApnsStandIn.keyID), "bundle_id": .string(ApnsStandIn.bundleID),
                                                  "p8": .string(apns.p8)])
        guard saved.code == 0 else { throw StackError("apns.credentials: \(saved)") }
    }

    @discardableResult
    func call(_ command: String, _ payload: [String: JSONValue]) throws -> JSONValue {
        try client.json(command, payload)
    }

    /// Registers a device with an APNs token (and tags, an alias); returns its registration ID.
    func device(_ token: String, tags: [String] = [], alias: String? = nil, production: Bool = false) throws -> String {
        let reply = try call("device.register", ["app_key": .string(appKey), "platform": .string("ios"), "apns_token": .string(token),
                                                 "apns_production": .bool(production), "device_id": .string("install-" + token)])
        guard let id = reply["registration_id"]?.string else { throw StackError("device.register: \(reply)") }
        if !tags.isEmpty {
            try expectOK(call("tags.add", ["app_key": .string(appKey), "registration_id": .string(id), "tags": .array(tags.map(JSONValue.string))]))
        }
        if let alias {
            try expectOK(call("alias.set", ["app_key": .string(appKey), "registration_id": .string(id), "alias": .string(alias)]))
        }
        return id
    }

    /// Registers `count` devices (tokens from `token(n)`) with up to `window` registrations in flight,
    /// unsigned as first registrations are; returns their registration IDs. The gateway must take
    /// that many from one address (`--register-rate 0`).
    func devices(_ count: Int, token: (Int) -> String, window: Int = 256) throws -> [String] {
        let socket = try stack.dealer()
        defer { socket.close() }
        var ids: [String] = []
        var sent = 0
        while ids.count < count {
            while sent < count && sent - ids.count < window {
                let payload: JSONValue = .object(["app_key": .string(appKey), "platform": .string("ios"), "apns_token": .string(token(sent)),
                                                  "device_id": .string("bulk-\(sent)")])
                try socket.send(Message([Data(), MDP.client, Data("device".utf8), Data("device.register".utf8), WireCodec.encode(payload)]))
                sent += 1
            }
            guard let reply = try socket.receive(), let body = reply.frames.last,
                  let id = try JSONTreeDecoder().decode(JSONValue.self, from: body)["registration_id"]?.string else {
                throw StackError("a bulk registration failed")
            }
            ids.append(id)
        }
        return ids
    }

    /// Waits until tagging's audience of every device holds `count` devices.
    func waitUntilKnown(count: Int, within seconds: Double = 120) throws {
        var total = 0.0
        _ = try eventually(seconds, every: 250_000) {
            total = try call("audience.resolve", ["app_key": .string(appKey), "all": .bool(true), "limit": .number(1)])["total"]?.number ?? 0
            return Int(total) >= count
        }
        guard Int(total) >= count else { throw StackError("tagging knows \(total) devices of \(count)") }
    }

    /// Waits until tagging has learnt every one of `ids` (it follows registration's events).
    func waitUntilKnown(_ ids: [String]) throws {
        var page: JSONValue = .null
        let known = try eventually(15) {
            page = try call("audience.resolve", ["app_key": .string(appKey), "all": .bool(true), "limit": .number(10_000)])
            return Set(ids).isSubset(of: Set(page["registration_ids"]?.arrayStrings ?? []))
        }
        guard known else { throw StackError("tagging never learnt the devices \(ids): \(page)") }
    }

    /// `push.send` with `to` and an iOS notification body; the reply.
    func push(to: JSONValue, ios: [String: JSONValue] = ["alert": .string("hello")], options: [String: JSONValue] = [:],
              command: String = "push.send") throws -> JSONValue {
        var body: [String: JSONValue] = ["platform": .string("ios"), "notification": .object(["ios": .object(ios)])]
        if !options.isEmpty { body["options"] = .object(options) }
        return try call(command, ["app_key": .string(appKey), "to": to, "body": .object(body)])
    }

    /// `push.status` of one message.
    func status(_ msgID: String) throws -> JSONValue? {
        try call("push.status", ["app_key": .string(appKey), "msg_ids": .array([.string(msgID)])])["messages"]?[msgID]
    }

    /// Waits until the message is `done` and returns its status.
    func waitUntilDone(_ msgID: String, within seconds: Double = 30) throws -> JSONValue {
        var last: JSONValue?
        _ = try eventually(seconds, every: 100_000) {
            last = try status(msgID)
            return last?["state"]?.string == "done"
        }
        guard let last, last["state"]?.string == "done" else {
            throw StackError("message \(msgID) not done: \(String(describing: last))\npush:\n\(stack.services["push"]?.output.suffix(3000) ?? "")\napns:\n\(stack.services["apns"]?.output.suffix(3000) ?? "")")
        }
        return last
    }

    /// The stand-in's requests for `msgID` (by the payload's `_j_msgid`).
    func received(_ msgID: String) throws -> [JSONValue] {
        try apns.requests().filter { $0["payload"]?["_j_msgid"]?.string == msgID }
    }

    private func expectOK(_ reply: JSONValue) throws {
        guard reply.code == 0 else { throw StackError("refused: \(reply)") }
    }
}

extension JSONValue {
    var arrayStrings: [String]? {
        guard case .array(let items) = self else { return nil }
        return items.compactMap(\.string)
    }
}
