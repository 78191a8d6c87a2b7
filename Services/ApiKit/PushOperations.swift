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

    /// One entry of a batch: its push's `target` (a registration ID, or an alias in a batch of kind
    /// "alias") and the rest of its fields.
    typealias BatchEntry = (target: String?, body: JSONObject)

    /// One push per entry, each to its `target`, and one result per entry in the entries' order:
    /// `{"target", "success": true, "msg_id"}` or `{"target", "success": false, "error": {"code", "message"}}`.
    /// Each push costs a unit of the app's quota, the first the one the request took: the entries past
    /// what the window has left are refused (2002) and not sent. Any refusal of an entry is its
    /// result and the next entries are sent all the same, but for no answer in time (6002): the bus
    /// is not answering, and the entries after it are not sent (6002 too) rather than each waiting.
    static func batch(_ call: RouteCall, _ entries: [BatchEntry], kind: String) throws(Refusal) -> [JSONValue] {
        guard entries.count <= maxBatch else { throw Refusal.invalid("at most \(maxBatch) pushes in one batch, got \(entries.count)") }
        let allowed = entries.isEmpty ? 0 : 1 + call.charge(entries.count - 1)
        var unanswered = false
        return entries.enumerated().map { index, entry in
            guard index < allowed else { return failure(entry.target, overQuota) }
            guard !unanswered else { return failure(entry.target, notSent) }
            guard let target = entry.target, !target.isEmpty else { return failure(entry.target, Refusal.missing("target is missing")) }
            var body: [String: JSONValue] = [:]
            for key in ["platform", "options"] + PushContent.kinds { body[key] = entry.body[key] }
            let push: [String: JSONValue] = ["to": .object([kind: .array([.string(target)])]), "body": .object(body),
                                             "custom_args": entry.body["custom_args"] ?? .null]
            do throws(Refusal) {
                let sent = try send(call, JSONObject(push.filter { $0.value != .null }))
                return .object(["target": .string(target), "success": .bool(true), "msg_id": sent["msg_id"] ?? .null])
            } catch {
                unanswered = error.code == Int(ResultCode.timeout.rawValue)
                return failure(target, error)
            }
        }
    }

    /// The result of a batch entry past the app's quota.
    static let overQuota = Refusal(429, Refusal.rateLimited, "past the app's quota for this window: not sent")
    /// The result of a batch entry after one the bus did not answer in time.
    static let notSent = Refusal(503, Int(ResultCode.timeout.rawValue), "not sent: an earlier push of this batch got no answer in time")

    /// Whether the app's quota (or the gateway's rate for the app) refused any entry of `results`.
    static func isRateLimited(_ results: [JSONValue]) -> Bool {
        results.contains { $0["error"]?["code"]?.number == Double(Refusal.rateLimited) }
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
    static func unknownIsNotFound(_ what: String, unknown: ResultCode = .pushInvalid,
                                  _ work: () throws(Refusal) -> JSONValue) throws(Refusal) -> JSONValue {
        do { return try work() } catch where error.code == Int(unknown.rawValue) {
            throw Refusal(404, error.code, "no \(what) in this app: \(error.message)")
        }
    }
}
