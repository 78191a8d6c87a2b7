import Credentials
import Foundation
import JSON
import Schema
import SQLite
import Worker

/// Server-side scheduled pushes (`schedule.*`), signed by the app: kept here, fired by
/// `ScheduleFirer` as one `push.send` each time they fall due. A schedule's push is checked by push
/// itself before it is stored (`SchedulePushCheck`), and an app keeps at most
/// `settings.maxSchedulesPerApp` of them.
extension SchedulerHandler {
    static let maxScheduleNameBytes = 255
    static let maxSchedulePushBytes = 16 * 1024

    public var inquiring: Set<Command> { [.scheduleCreate, .scheduleUpdate] }

    /// `schedule.create`, and `schedule.update` when it changes `push`, ask push to validate the push
    /// the schedule will send; a request whose own fields are wrong is refused here, before anything
    /// is asked.
    public func inquiries(_ command: Command, _ request: Request) throws -> [Inquiry] {
        switch command {
        case .scheduleCreate:
            let row = try draftSchedule(request.decode(ScheduleCreate.self))
            return SchedulePushCheck.inquiries(appKey: row.appKey, push: row.push, fireAt: row.nextFireAt ?? clock())
        case .scheduleUpdate:
            let p = try request.decode(ScheduleUpdate.self)
            guard let push = p.push else { return [] }
            let appKey = try Validate.appKey(p.appKey)
            if let name = p.name { _ = try Self.scheduleName(name) }
            return SchedulePushCheck.inquiries(appKey: appKey, push: try Self.schedulePush(push), fireAt: clock())
        default:
            return []
        }
    }

    /// Stores the schedule once push has taken its push (`answers`) and the app has room for it.
    func createSchedule(_ p: ScheduleCreate, answers: [Inquiry.Answer] = [], in db: Database) throws -> ScheduleCreated {
        let row = try draftSchedule(p)
        let kept = try pushSchedules.count(db, appKey: row.appKey)
        guard kept < settings.maxSchedulesPerApp else {
            throw CommandError.badField("the app keeps \(kept) schedules, at most \(settings.maxSchedulesPerApp) are allowed: delete one first")
        }
        try SchedulePushCheck.check(answers)
        try pushSchedules.insert(db, row, now: clock())
        return ScheduleCreated(scheduleID: row.id, name: row.name)
    }

    /// The schedule `p` asks for, with a new ID, after every check that needs neither the database nor push.
    private func draftSchedule(_ p: ScheduleCreate) throws -> PushScheduleStore.Row {
        let appKey = try Validate.appKey(p.appKey)
        let name = try Self.scheduleName(p.name)
        let timezone = p.timezone ?? "UTC"
        let trigger = try PushTrigger(p.trigger, timezone: timezone)
        let push = try Self.schedulePush(p.push)
        guard let next = trigger.next(after: clock()) else {
            throw CommandError.badField("the trigger never fires after now")
        }
        return PushScheduleStore.Row(id: RandomKey.hex(bytes: PushScheduleStore.idBytes), appKey: appKey, name: name, enabled: p.enabled ?? true,
                                     trigger: p.trigger ?? .null, timezone: timezone, push: push, nextFireAt: next, lastError: nil)
    }

    func getSchedule(_ p: ScheduleRef, in db: Database) throws -> ScheduleInfo {
        try schedule(p.appKey, p.scheduleID, in: db).info
    }

    /// Changes the schedule; a new `push` only once push has taken it (`answers`).
    func updateSchedule(_ p: ScheduleUpdate, answers: [Inquiry.Answer] = [], in db: Database) throws -> ScheduleInfo {
        let old = try schedule(p.appKey, p.scheduleID, in: db)
        let timezone = p.timezone ?? old.timezone
        let triggerJSON = p.trigger ?? old.trigger
        let trigger = try PushTrigger(triggerJSON, timezone: timezone)
        let retimed = p.trigger != nil || p.timezone != nil
        let row = PushScheduleStore.Row(
            id: old.id, appKey: old.appKey, name: try p.name.map { try Self.scheduleName($0) } ?? old.name,
            enabled: p.enabled ?? old.enabled, trigger: triggerJSON, timezone: timezone,
            push: try p.push.map { try Self.schedulePush($0) } ?? old.push,
            nextFireAt: retimed ? trigger.next(after: clock()) : old.nextFireAt, lastError: old.lastError)
        if p.push != nil { try SchedulePushCheck.check(answers) }
        try pushSchedules.update(db, row)
        return row.info
    }

    func deleteSchedule(_ p: ScheduleRef, in db: Database) throws -> Empty {
        try pushSchedules.delete(db, id: try schedule(p.appKey, p.scheduleID, in: db).id)
        return Empty()
    }

    func listSchedules(_ p: ScheduleList, in db: Database) throws -> ScheduleListReply {
        let appKey = try Validate.appKey(p.appKey)
        let page = p.page ?? 1
        guard page >= 1, page <= 100_000 else { throw CommandError.badField("page must be 1 or more") }
        let (rows, total) = try pushSchedules.page(db, appKey: appKey, page: page)
        let pages = (total + PushScheduleStore.pageSize - 1) / PushScheduleStore.pageSize
        return ScheduleListReply(schedules: rows.map(\.info), page: page, totalPages: pages, totalCount: total)
    }

    func scheduleMsgIDs(_ p: ScheduleRef, in db: Database) throws -> ScheduleMsgIDs {
        ScheduleMsgIDs(msgIDs: try pushSchedules.msgIDs(db, id: try schedule(p.appKey, p.scheduleID, in: db).id))
    }

    private func schedule(_ appKey: String?, _ id: String?, in db: Database) throws -> PushScheduleStore.Row {
        let appKey = try Validate.appKey(appKey)
        guard let id, !id.isEmpty else { throw CommandError.missing("schedule_id is missing") }
        guard let row = try pushSchedules.find(db, appKey: appKey, id: id) else {
            throw CommandError.badField("schedule_id \(id.prefix(40)) is not a schedule of this app")
        }
        return row
    }

    private static func scheduleName(_ name: String?) throws(CommandError) -> String {
        guard let name, !name.isEmpty else { throw .missing("name is missing") }
        guard name.utf8.count <= maxScheduleNameBytes else { throw .badField("name is longer than \(maxScheduleNameBytes) bytes") }
        guard !Validate.hasControlCharacter(name) else { throw .badField("name must not contain control characters") }
        return name
    }

    /// `push.send`'s payload without `app_key` (the schedule's app sends it): `to` and `body` must be
    /// there; push checks the rest (`SchedulePushCheck`), and when it fires, a refusal then (the app's
    /// APNs key removed, say) is kept as `last_error`.
    private static func schedulePush(_ push: JSONValue?) throws(CommandError) -> JSONValue {
        guard case .object(var object)? = push else { throw .missing("push is missing or not an object") }
        guard object["to"] != nil else { throw .missing("push.to is missing") }
        guard case .object? = object["body"] else { throw .missing("push.body is missing or not an object") }
        guard WireCodec.encode(JSONValue.object(object)).count <= maxSchedulePushBytes else {
            throw .badField("push is larger than \(maxSchedulePushBytes) bytes")
        }
        object["app_key"] = nil
        return .object(object)
    }
}
