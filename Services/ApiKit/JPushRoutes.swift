import Foundation
import JSON
import Schema

/// JPush's v3 REST API, as its official server SDK (`jpush`) calls it once `ZONES` points here.
enum JPushRoutes {
    static let all: [Route] = push + devices + schedules + report

    static let push: [Route] = [
        Route("POST", "/v3/push") { call in try send(call) },
        Route("POST", "/v3/push/validate") { call in try send(call, validateOnly: true) },
        Route("GET", "/v3/push/cid") { call in
            let count = call.request.argument("count").flatMap(Int.init) ?? 1
            guard (1...1000).contains(count) else { throw Refusal.invalid("count must be 1 to 1000") }
            return .object(["cidlist": .array((0..<count).map { _ in .string((call.appKey ?? "") + "-" + UUID().uuidString.lowercased()) })])
        },
        Route("POST", "/v3/push/batch/regid/single") { call in try batch(call, kind: "registration_id") },
        Route("POST", "/v3/push/batch/alias/single") { call in try batch(call, kind: "alias") },
    ]

    static let devices: [Route] = [
        Route("GET", "/v3/devices/{registration_id}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.info(call) },
        Route("POST", "/v3/devices/{registration_id}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.update(call) },
        Route("POST", "/v3/devices/status", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.status(call) },
        Route("GET", "/v3/tags", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.tags(call) },
        Route("POST", "/v3/tags/{tag}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.changeTag(call) },
        Route("DELETE", "/v3/tags/{tag}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.deleteTag(call) },
        Route("GET", "/v3/tags/{tag}/registration_ids/{registration_id}", badBodyCode: Refusal.deviceRequest) { call in
            try DeviceOperations.hasTag(call)
        },
        Route("GET", "/v3/aliases/{alias}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.aliasDevices(call) },
        Route("DELETE", "/v3/aliases/{alias}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.deleteAlias(call) },
    ]

    static let schedules: [Route] = [
        Route("POST", "/v3/schedules") { call in try PushOperations.createSchedule(call, schedule(call.object())) },
        Route("GET", "/v3/schedules") { call in try PushOperations.listSchedules(call) },
        Route("GET", "/v3/schedules/{schedule_id}") { call in try PushOperations.schedule(call, .scheduleGet) },
        Route("PUT", "/v3/schedules/{schedule_id}") { call in try PushOperations.updateSchedule(call, schedule(call.object())) },
        Route("DELETE", "/v3/schedules/{schedule_id}") { call in try PushOperations.schedule(call, .scheduleDelete) },
        Route("GET", "/v3/schedules/{schedule_id}/msg_ids") { call in
            let sent = try PushOperations.scheduleMsgIDs(call)
            return .object(["count": sent.count, "msgids": sent.ids])
        },
    ]

    static let report: [Route] = [
        // Per message: APNs sends as `ios_apns_sent`, what devices reported received as `ios_apns_received`.
        Route("GET", "/v3/received") { call in
            let messages = try PushOperations.status(call, call.request.list("msg_ids"))
            return .array(messages.sorted { $0.key < $1.key }.map { id, counts in
                .object(["msg_id": msgID(id), "ios_apns_sent": counts["sent"] ?? .null, "ios_apns_received": counts["received"] ?? .null,
                         "ios_msg_received": .null, "android_received": .null, "wp_mpns_sent": .null])
            })
        },
        // Per device: 0 sent to APNs, 1 not (yet) sent, 2 not a target of the message.
        Route("POST", "/v3/status/message") { call in
            let body = try call.object()
            guard let msgID = body["msg_id"].flatMap({ $0.string ?? $0.number.map { String(Int($0)) } }) else {
                throw Refusal.missing("msg_id is missing")
            }
            let ids = try DeviceOperations.registrationIDs(in: body, field: "registration_ids")
            let devices = try PushOperations.deviceStatus(call, msgID: msgID, registrationIDs: ids)
            return .object(devices.mapValues { status in
                let code: Double = switch status["status"]?.string { case "sent": 0; case "not_target": 2; default: 1 }
                return .object(["status": .number(code), "reason": status["reason"] ?? .null])
            })
        },
    ]

    private static func send(_ call: RouteCall, validateOnly: Bool = false) throws -> JSONValue {
        let v3 = try call.object()
        let sent = try PushOperations.send(call, JPushPayload.engageLab(v3), validateOnly: validateOnly)
        return .object(["sendno": JPushPayload.sendno(v3), "msg_id": sent["msg_id"] ?? .string("0")])
    }

    /// `{"pushlist": {cid: {"platform", "target", "notification", "message", "options"}}}`: results by
    /// cid, `{"msg_id"}` or `{"error": {"code", "message"}}` each; a cid named twice is refused.
    private static func batch(_ call: RouteCall, kind: String) throws -> JSONValue {
        guard case .object(let list)? = try call.object()["pushlist"] else { throw Refusal.missing("pushlist is missing or not an object") }
        var entries: [PushOperations.BatchEntry] = []
        var cids: [String] = []
        var named: Set<String> = []
        for (cid, item) in list.members {
            guard named.insert(cid).inserted else { throw Refusal.invalid("pushlist names cid \(cid.prefix(64)) twice") }
            guard case .object(var body) = item else { throw Refusal.invalid("pushlist.\(cid.prefix(64)) is not an object") }
            var options: [String: JSONValue] = [:]
            if case .object(let given)? = body["options"] { options = given.dictionary }
            options["cid"] = .string(cid)
            options["sendno"] = nil
            body = JSONObject(body.dictionary.merging(["options": .object(options)]) { $1 })
            entries.append((body["target"]?.string, body))
            cids.append(cid)
        }
        let results = try PushOperations.batch(call, entries, kind: kind)
        var byCID: [String: JSONValue] = [:]
        for (cid, result) in zip(cids, results) {
            byCID[cid] = result["success"] == .bool(true) ? .object(["msg_id": result["msg_id"] ?? .null]) : .object(["error": result["error"] ?? .null])
        }
        return .object(byCID)
    }

    /// A v3 schedule's `push` (a v3 push body) in EngageLab's terms.
    private static func schedule(_ v3: JSONObject) -> JSONObject {
        var fields = v3.dictionary
        if case .object(let push)? = v3["push"] { fields["push"] = .object(JPushPayload.engageLab(push)) }
        return JSONObject(fields)
    }

    /// JPush's msg_ids are numbers; ours are decimal strings, given back as numbers when they are.
    private static func msgID(_ id: String) -> JSONValue { Int(id).map { .number(Double($0)) } ?? .string(id) }
}
