import Client
import Credentials
import Foundation
import JSON
import Runtime
import Schema
import SQLite
import Worker
import ZeroMQ

/// Fires the server-side scheduled pushes, a side loop of the scheduler with its own connection to
/// the scheduler's database and its own client of the gateway: each due schedule becomes exactly one `push.send`, whose msg_id is then
/// recorded and the schedule moved to its next time. The push carries a `cid` made of the schedule
/// and the time it fires for, so a firing repeated after a crash between the send and the record
/// (or after a timeout) gets the first msg_id back and sends nothing again. A schedule due while the
/// scheduler was down fires when it starts, once, and then follows its trigger.
public final class ScheduleFirer: SideLoop {
    public let name = "schedules"
    private let path: String
    private let access: GatewayAccess
    private var store: Store!
    private var gateway: ServiceCaller!
    private let schedules = PushScheduleStore()
    private let logger: Logger
    private var retryAfter: [String: Double] = [:]
    /// When a firing that got no answer is tried again.
    static let retryDelay = 2.0

    public init(path: String, access: GatewayAccess, logger: Logger) {
        self.path = path
        self.access = access
        self.logger = logger
    }

    public func prepare(context: Context) throws {
        store = try Store(path: path, migrations: ServiceStorage.migrations(SchedulerSchema.migrations))
        gateway = try access.caller(context: context)
    }

    /// Fires what is due (a few at a time); then waits for the next due schedule, a quarter second at most.
    public func pass(now: Double) throws -> Double {
        let due = try store.read { db in try schedules.due(db, now: now, limit: 16) }
            .filter { retryAfter[$0.id].map { $0 <= now } ?? true }
        for schedule in due {
            if fire(schedule, now: now) { retryAfter[schedule.id] = nil } else { retryAfter[schedule.id] = now + Self.retryDelay }
        }
        guard due.isEmpty else { return 0 }
        let next = try store.read { db in try schedules.nextDue(db) } ?? now + 1
        return max(0.01, min(0.25, next - now))
    }

    /// Sends one firing and records it; false when it must be tried again (no answer, or the push
    /// service could not take it now).
    private func fire(_ schedule: PushScheduleStore.Row, now: Double) -> Bool {
        guard let fireAt = schedule.nextFireAt else { return true }
        let trigger = try? PushTrigger(schedule.trigger, timezone: schedule.timezone)
        let next = trigger?.next(after: max(fireAt, now))
        var msgID: String?
        var refusal: String?
        do {
            let send = Self.send(appKey: schedule.appKey, scheduleID: schedule.id, push: schedule.push, fireAt: fireAt)
            msgID = try gateway.call(.pushSend, send, as: PushAccepted.self).msgID
        } catch let error as CommandError where error.code != .timeout && error.code != .internalError {
            refusal = "\(error.code.rawValue): \(error.message)"
            logger.warning("a scheduled push was refused", ["schedule_id": schedule.id, "code": error.code.rawValue, "message": error.message])
        } catch {
            logger.warning("a scheduled push got no answer; trying again", ["schedule_id": schedule.id, "error": error])
            return false
        }
        do {
            try store.write { db in try schedules.fired(db, id: schedule.id, at: fireAt, msgID: msgID, error: refusal, next: next) }
        } catch {
            logger.error("a scheduled push was sent but could not be recorded; it is sent again (same cid, so once)",
                         ["schedule_id": schedule.id, "error": error])
            return false
        }
        return true
    }

    /// The `push.send` a schedule of `appKey` makes of its stored `push` (which has no `app_key`) when
    /// it fires at `fireAt`, with the firing's idempotency key. `schedule.create` and `schedule.update`
    /// have push validate this very payload (`SchedulePushCheck`).
    static func send(appKey: String, scheduleID: String, push: JSONValue, fireAt: Double) -> PushSend {
        var body = push["body"] ?? .object([:])
        if case .object(var object) = body {
            var options: JSONObject
            if case .object(let given)? = object["options"] { options = given } else { options = JSONObject() }
            options["cid"] = .string("sched:\(scheduleID):\(Int64(fireAt))")
            object["options"] = .object(options)
            body = .object(object)
        }
        return PushSend(appKey: appKey, to: push["to"], body: body, requestID: push["request_id"]?.string, customArgs: push["custom_args"])
    }
}
