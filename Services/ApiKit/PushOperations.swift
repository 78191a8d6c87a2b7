import Foundation
import JSON
import Schema

/// Pushes, their status and schedules, shared by EngageLab v4 and JPush v3: the bodies are
/// EngageLab's (JPush's are translated first, `JPushPayload`), and every check is the push
/// service's or the scheduler's.
enum PushOperations {
    /// How many pushes one batch call may carry (JPush: 1000).
    static let maxBatch = 1000

    /// `push.send` (or `push.validate`) of an EngageLab body: `to`, `body`, `request_id`, `custom_args`.
    static func send(_ call: RouteCall, _ push: JSONObject, validateOnly: Bool = false) throws(Refusal) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        for key in ["to", "body", "request_id", "custom_args"] { fields[key] = push[key] }
        return try call.call(validateOnly ? .pushValidate : .pushSend, fields).withoutEnvelope
    }

    /// One push per entry of `requests`, each to its `target` (a registration ID, or an alias with
    /// `kind` "alias"); a refused one is reported in its result, the others are sent.
    static func batch(_ call: RouteCall, _ requests: [(key: String, target: String?, body: JSONObject)], kind: String) throws(Refusal) -> [String: JSONValue] {
        guard requests.count <= maxBatch else { throw Refusal.invalid("at most \(maxBatch) pushes in one batch, got \(requests.count)") }
        var results: [String: JSONValue] = [:]
        for request in requests {
            guard let target = request.target, !target.isEmpty else {
                results[request.key] = failure(request.target, Refusal.missing("target is missing"))
                continue
            }
            var body: [String: JSONValue] = [:]
            for key in ["platform", "notification", "message", "live_activity", "voip", "options"] { body[key] = request.body[key] }
            let push: [String: JSONValue] = ["to": .object([kind: .array([.string(target)])]), "body": .object(body),
                                             "custom_args": request.body["custom_args"] ?? .null]
            do {
                let sent = try send(call, JSONObject(push.filter { $0.value != .null }))
                results[request.key] = .object(["target": .string(target), "success": .bool(true), "msg_id": sent["msg_id"] ?? .null])
            } catch where error.status == 400 {
                results[request.key] = failure(target, error)
            }
        }
        return results
    }

    private static func failure(_ target: String?, _ refusal: Refusal) -> JSONValue {
        .object(["target": target.map(JSONValue.string) ?? .null, "success": .bool(false),
                 "error": .object(["code": .number(Double(refusal.code)), "message": .string(refusal.message)])])
    }

    /// `push.status` of the listed msg_ids: msg_id → `targets`, `sent`, `failed`, `pending`, `state`, `received`, `opened`.
    static func status(_ call: RouteCall, _ msgIDs: [String]) throws(Refusal) -> [String: JSONValue] {
        guard !msgIDs.isEmpty else { throw Refusal.missing("msg_ids is missing") }
        guard case .object(let messages)? = try call.call(.pushStatus, ["msg_ids": .array(msgIDs.map(JSONValue.string))])["messages"] else { return [:] }
        return messages.dictionary
    }

    /// `push.device_status`: registration ID → `status` (sent, failed, pending, not_target), `reason`.
    static func deviceStatus(_ call: RouteCall, msgID: String, registrationIDs: [String]) throws(Refusal) -> [String: JSONValue] {
        let reply = try call.call(.pushDeviceStatus, ["msg_id": .string(msgID), "registration_ids": .array(registrationIDs.map(JSONValue.string))])
        guard case .object(let devices)? = reply["devices"] else { return [:] }
        return devices.dictionary
    }

    static func withdraw(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let id = call.parameter("msg_id")
        return try unknownIsNotFound("message \(id.prefix(32))") { () throws(Refusal) in
            try call.call(.pushWithdraw, ["msg_id": .string(id)]).withoutEnvelope
        }
    }

    // MARK: schedules

    /// `schedule.create` of `name`, `enabled`, `trigger` and `push` (an EngageLab push body).
    static func createSchedule(_ call: RouteCall, _ schedule: JSONObject) throws(Refusal) -> JSONValue {
        try call.call(.scheduleCreate, scheduleFields(schedule)).withoutEnvelope
    }

    static func listSchedules(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let page = call.request.argument("page").flatMap(Int.init) ?? 1
        return try call.call(.scheduleList, ["page": .number(Double(page))]).withoutEnvelope
    }

    static func schedule(_ call: RouteCall, _ command: Command, _ fields: [String: JSONValue] = [:]) throws(Refusal) -> JSONValue {
        let id = call.parameter("schedule_id")
        return try unknownIsNotFound("schedule \(id.prefix(40))") { () throws(Refusal) in
            try call.call(command, fields.merging(["schedule_id": .string(id)]) { $1 }).withoutEnvelope
        }
    }

    /// `schedule.update` of the path's schedule with the fields `change` gives; 404 when the app has no such schedule.
    static func updateSchedule(_ call: RouteCall, _ change: JSONObject) throws(Refusal) -> JSONValue {
        _ = try schedule(call, .scheduleGet)
        return try call.call(.scheduleUpdate, scheduleFields(change).merging(["schedule_id": .string(call.parameter("schedule_id"))]) { $1 })
            .withoutEnvelope
    }

    /// The msg_ids the path's schedule has sent, and how many: `(count, ids)`.
    static func scheduleMsgIDs(_ call: RouteCall) throws(Refusal) -> (count: JSONValue, ids: JSONValue) {
        let ids = try schedule(call, .scheduleMsgIDs)["msg_ids"] ?? .array([])
        return (.number(Double(ids.strings?.count ?? 0)), ids)
    }

    private static func scheduleFields(_ schedule: JSONObject) -> [String: JSONValue] {
        schedule.dictionary.filter { ["name", "enabled", "trigger", "timezone", "push"].contains($0.key) }
    }

    /// A refusal of the ID in the path (1003: no such message or schedule of this app) as 404.
    static func unknownIsNotFound(_ what: String, _ work: () throws(Refusal) -> JSONValue) throws(Refusal) -> JSONValue {
        do { return try work() } catch where error.code == Int(ResultCode.pushInvalid.rawValue) {
            throw Refusal(404, error.code, "no \(what) in this app: \(error.message)")
        }
    }
}
