import JSON
import Schema

/// EngageLab's v4 REST API, as its official server SDK (`engagelab-apppush`) calls it.
enum EngageLabRoutes {
    static let all: [Route] = push + devices + schedules + status

    static let push: [Route] = [
        Route("POST", "/v4/push") { call in try PushOperations.send(call, call.object()) },
        Route("POST", "/v4/push/validate") { call in try PushOperations.send(call, call.object(), validateOnly: true) },
        Route("DELETE", "/v4/push/withdraw/{msg_id}") { call in try PushOperations.withdraw(call) },
        Route("POST", "/v4/batch/push/regid") { call in try batch(call, kind: "registration_id") },
        Route("POST", "/v4/batch/push/alias") { call in try batch(call, kind: "alias") },
    ]

    static let devices: [Route] = [
        Route("GET", "/v4/devices/{registration_id}", badBodyCode: Refusal.deviceRequest) { call in
            let info = try DeviceOperations.info(call)
            return .object(["tags": info["tags"] ?? .array([]), "alias": info["alias"] ?? .null])
        },
        Route("POST", "/v4/devices/{registration_id}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.update(call) },
        Route("DELETE", "/v4/devices/{registration_id}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.delete(call) },
        Route("POST", "/v4/devices/status", badBodyCode: Refusal.deviceRequest) { call in
            guard case .object(let devices) = try DeviceOperations.status(call) else { return .array([]) }
            return .array(devices.dictionary.sorted { $0.key < $1.key }.map { id, status in
                .object(["regid": .string(id), "online": status["online"] ?? .bool(false), "last_online_time": status["last_online_time"] ?? .null])
            })
        },
        Route("GET", "/v4/tags", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.tags(call) },
        Route("POST", "/v4/tags/{tag}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.changeTag(call) },
        Route("DELETE", "/v4/tags/{tag}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.deleteTag(call) },
        Route("GET", "/v4/tags_count", badBodyCode: Refusal.deviceRequest) { call in
            let tags = call.request.list("tags")
            guard !tags.isEmpty else { throw Refusal.badRequest(Refusal.deviceRequest, "tags is missing") }
            let counts = try call.call(.tagsCount, ["tags": .array(tags.map(JSONValue.string))])["counts"] ?? .object([:])
            return .object(["tagsCount": counts])
        },
        Route("GET", "/v4/tags/{tag}/registration_ids/{registration_id}", badBodyCode: Refusal.deviceRequest) { call in
            try DeviceOperations.hasTag(call)
        },
        Route("GET", "/v4/aliases/{alias}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.aliasDevices(call) },
        Route("DELETE", "/v4/aliases/{alias}", badBodyCode: Refusal.deviceRequest) { call in try DeviceOperations.deleteAlias(call) },
    ]

    static let schedules: [Route] = [
        Route("POST", "/v4/schedules") { call in try PushOperations.createSchedule(call, call.object()) },
        Route("GET", "/v4/schedules") { call in try PushOperations.listSchedules(call) },
        Route("GET", "/v4/schedules/{schedule_id}") { call in try PushOperations.schedule(call, .scheduleGet) },
        Route("PUT", "/v4/schedules/{schedule_id}") { call in try PushOperations.updateSchedule(call, call.object()) },
        Route("DELETE", "/v4/schedules/{schedule_id}") { call in try PushOperations.schedule(call, .scheduleDelete) },
        Route("GET", "/v4/schedules/{schedule_id}/msg-ids") { call in
            let sent = try PushOperations.scheduleMsgIDs(call)
            return .object(["count": sent.count, "msg_ids": sent.ids])
        },
    ]

    static let status: [Route] = [
        Route("GET", "/v4/status/detail") { call in
            .object(try PushOperations.status(call, call.request.list("message_ids")))
        },
        Route("GET", "/v4/status/message") { call in
            guard let msgID = call.request.argument("message_id"), !msgID.isEmpty else { throw Refusal.missing("message_id is missing") }
            return .object(try PushOperations.deviceStatus(call, msgID: msgID, registrationIDs: call.request.list("registration_ids")))
        },
    ]

    /// `{"requests": [{"target", "platform", "notification", "message", "options", "custom_args"}]}`:
    /// `ordered_results`, one per request in the requests' order, and `results`, the same by target as
    /// EngageLab answers (its SDK reads them so), a target's later requests under `target#index`;
    /// `rate_limit_info` when the app's quota left some requests unsent.
    private static func batch(_ call: RouteCall, kind: String) throws -> JSONValue {
        guard case .array(let items)? = try call.object()["requests"] else { throw Refusal.missing("requests is missing or not an array") }
        var entries: [PushOperations.BatchEntry] = []
        for (index, item) in items.enumerated() {
            guard case .object(let body) = item else { throw Refusal.invalid("requests[\(index)] is not an object") }
            entries.append((body["target"]?.string, body))
        }
        let results = try PushOperations.batch(call, entries, kind: kind)
        var byTarget: [String: JSONValue] = [:]
        for (index, result) in results.enumerated() {
            var key = entries[index].target ?? ""
            while key.isEmpty || byTarget[key] != nil { key += "#\(index)" }
            byTarget[key] = result
        }
        var answer: [String: JSONValue] = ["results": .object(byTarget), "ordered_results": .array(results)]
        if PushOperations.isRateLimited(results) {
            answer["rate_limit_info"] = .object(["rate_limit_occurred": .bool(true),
                                                 "message": .string("some requests were past the app's quota and were not sent")])
        }
        return .object(answer)
    }
}
