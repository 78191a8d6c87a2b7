// Server-side scheduled pushes, kept and fired by the `scheduler` service (reference/commands.md,
// section "push"). Triggers follow EngageLab's v4 schedule API.
import JSON

/// `schedule.create`: a push (`push.send`'s payload without `app_key`) sent once at a time
/// (`trigger.single.time`) or periodically (`trigger.periodical`: `start`, `end`, `time`,
/// `time_unit` day/week/month, `point[]`), times read in `timezone` (default UTC).
public struct ScheduleCreate: Codable, Equatable, Sendable {
    public var appKey: String?
    public var name: String?
    public var enabled: Bool?
    public var trigger: JSONValue?
    public var timezone: String?
    public var push: JSONValue?
    public init(appKey: String?, name: String?, enabled: Bool? = true, trigger: JSONValue?, timezone: String? = nil, push: JSONValue?) {
        self.appKey = appKey
        self.name = name
        self.enabled = enabled
        self.trigger = trigger
        self.timezone = timezone
        self.push = push
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", name, enabled, trigger, timezone, push }
}

public struct ScheduleCreated: Codable, Equatable, Sendable {
    public var scheduleID: String
    public var name: String
    public init(scheduleID: String, name: String) {
        self.scheduleID = scheduleID
        self.name = name
    }
    enum CodingKeys: String, CodingKey { case scheduleID = "schedule_id", name }
}

/// `schedule.get`, `schedule.delete`, `schedule.msg_ids`.
public struct ScheduleRef: Codable, Equatable, Sendable {
    public var appKey: String?
    public var scheduleID: String?
    public init(appKey: String?, scheduleID: String?) {
        self.appKey = appKey
        self.scheduleID = scheduleID
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", scheduleID = "schedule_id" }
}

/// `schedule.update`: any of the fields; a new trigger or time zone sets the next time anew.
public struct ScheduleUpdate: Codable, Equatable, Sendable {
    public var appKey: String?
    public var scheduleID: String?
    public var name: String?
    public var enabled: Bool?
    public var trigger: JSONValue?
    public var timezone: String?
    public var push: JSONValue?
    public init(appKey: String?, scheduleID: String?, name: String? = nil, enabled: Bool? = nil, trigger: JSONValue? = nil,
                timezone: String? = nil, push: JSONValue? = nil) {
        self.appKey = appKey
        self.scheduleID = scheduleID
        self.name = name
        self.enabled = enabled
        self.trigger = trigger
        self.timezone = timezone
        self.push = push
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", scheduleID = "schedule_id", name, enabled, trigger, timezone, push
    }
}

/// A schedule as stored. `next_fire_at` (RFC 3339) is absent once it has nothing left to fire.
public struct ScheduleInfo: Codable, Equatable, Sendable {
    public var scheduleID: String
    public var name: String
    public var enabled: Bool
    public var trigger: JSONValue
    public var timezone: String
    public var push: JSONValue
    public var nextFireAt: String?
    /// Why the last firing's push.send was refused, when it was.
    public var lastError: String?
    public init(scheduleID: String, name: String, enabled: Bool, trigger: JSONValue, timezone: String, push: JSONValue,
                nextFireAt: String?, lastError: String? = nil) {
        self.scheduleID = scheduleID
        self.name = name
        self.enabled = enabled
        self.trigger = trigger
        self.timezone = timezone
        self.push = push
        self.nextFireAt = nextFireAt
        self.lastError = lastError
    }
    enum CodingKeys: String, CodingKey {
        case scheduleID = "schedule_id", name, enabled, trigger, timezone, push, nextFireAt = "next_fire_at", lastError = "last_error"
    }
}

/// `schedule.list`: pages of 50, from 1.
public struct ScheduleList: Codable, Equatable, Sendable {
    public var appKey: String?
    public var page: Int?
    public init(appKey: String?, page: Int? = nil) {
        self.appKey = appKey
        self.page = page
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", page }
}

public struct ScheduleListReply: Codable, Equatable, Sendable {
    public var schedules: [ScheduleInfo]
    public var page: Int
    public var totalPages: Int
    public var totalCount: Int
    public init(schedules: [ScheduleInfo], page: Int, totalPages: Int, totalCount: Int) {
        self.schedules = schedules
        self.page = page
        self.totalPages = totalPages
        self.totalCount = totalCount
    }
    enum CodingKeys: String, CodingKey { case schedules, page, totalPages = "total_pages", totalCount = "total_count" }
}

/// The msg_ids a schedule's firings produced, oldest first.
public struct ScheduleMsgIDs: Codable, Equatable, Sendable {
    public var msgIDs: [String]
    public init(msgIDs: [String]) { self.msgIDs = msgIDs }
    enum CodingKeys: String, CodingKey { case msgIDs = "msg_ids" }
}
