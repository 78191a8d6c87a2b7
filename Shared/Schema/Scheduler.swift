// Payloads and replies of the `scheduler` service: local notifications (reference/commands.md).
import JSON

extension ResultCode {
    /// `local.add`: the trigger would never fire (a one-shot time already past, or calendar
    /// components no date matches). Not in the SDK tables: the public service has no such command.
    public static let localTriggerNeverFires = ResultCode(6101)
    /// `local.add`: the device already holds the maximum of pending requests (64 by default).
    public static let localPendingLimit = ResultCode(6102)
}

/// What a local notification shows, as iOS `UNNotificationContent` has it.
public struct LocalContent: Codable, Equatable, Sendable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var badge: Int?
    public var sound: String?
    public var category: String?
    public var userInfo: [String: JSONValue]?
    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, badge: Int? = nil,
                sound: String? = nil, category: String? = nil, userInfo: [String: JSONValue]? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.sound = sound
        self.category = category
        self.userInfo = userInfo
    }
    enum CodingKeys: String, CodingKey {
        case title, subtitle, body, badge, sound, category, userInfo = "user_info"
    }
}

/// Calendar fields a `date_components` trigger matches, any subset (weekday 1 = Sunday, as iOS).
public struct CalendarComponents: Codable, Equatable, Sendable {
    public var year: Int?
    public var month: Int?
    public var day: Int?
    public var weekday: Int?
    public var hour: Int?
    public var minute: Int?
    public var second: Int?
    public init(year: Int? = nil, month: Int? = nil, day: Int? = nil, weekday: Int? = nil, hour: Int? = nil,
                minute: Int? = nil, second: Int? = nil) {
        self.year = year
        self.month = month
        self.day = day
        self.weekday = weekday
        self.hour = hour
        self.minute = minute
        self.second = second
    }
}

/// A circular region a `region` trigger fires on, entering and/or leaving it.
public struct LocalRegion: Codable, Equatable, Sendable {
    public var latitude: Double
    public var longitude: Double
    /// Metres.
    public var radius: Double
    public var notifyOnEntry: Bool?
    public var notifyOnExit: Bool?
    public var repeats: Bool?
    public init(latitude: Double, longitude: Double, radius: Double, notifyOnEntry: Bool? = nil,
                notifyOnExit: Bool? = nil, repeats: Bool? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.repeats = repeats
    }
    enum CodingKeys: String, CodingKey {
        case latitude, longitude, radius, notifyOnEntry = "notify_on_entry", notifyOnExit = "notify_on_exit"
        case repeats = "repeat"
    }
}

/// When a local notification fires: exactly one of `time_interval` (seconds), `date_components`,
/// `fire_date` (RFC 3339) or `region`; `repeat` and `timezone` go with the first two. The service checks.
public struct LocalTrigger: Codable, Equatable, Sendable {
    public var timeInterval: Double?
    public var dateComponents: CalendarComponents?
    public var fireDate: String?
    public var region: LocalRegion?
    public var repeats: Bool?
    public var timezone: String?

    public init(timeInterval: Double? = nil, dateComponents: CalendarComponents? = nil, fireDate: String? = nil,
                region: LocalRegion? = nil, repeats: Bool? = nil, timezone: String? = nil) {
        self.timeInterval = timeInterval
        self.dateComponents = dateComponents
        self.fireDate = fireDate
        self.region = region
        self.repeats = repeats
        self.timezone = timezone
    }

    enum CodingKeys: String, CodingKey {
        case timeInterval = "time_interval", dateComponents = "date_components", fireDate = "fire_date", region
        case repeats = "repeat", timezone
    }

    /// The kinds of trigger.
    public enum Kind: String, Sendable {
        case timeInterval = "time_interval", dateComponents = "date_components", fireDate = "fire_date", region
    }

    /// The one kind this trigger sets, or nil when it sets none or several.
    public var kind: Kind? {
        let set: [Kind] = [
            timeInterval == nil ? nil : .timeInterval,
            dateComponents == nil ? nil : .dateComponents,
            fireDate == nil ? nil : .fireDate,
            region == nil ? nil : .region,
        ].compactMap { $0 }
        return set.count == 1 ? set[0] : nil
    }
}

/// `local.add`: schedule a local notification; the same identifier replaces the earlier request.
public struct LocalAdd: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var identifier: String?
    public var content: LocalContent?
    public var trigger: LocalTrigger?
    public init(appKey: String?, registrationID: String?, identifier: String?, content: LocalContent?,
                trigger: LocalTrigger?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", identifier, content, trigger
    }
}

/// The answer to `local.add`; `next_fire_at` is absent for a region trigger.
public struct LocalAdded: Codable, Equatable, Sendable {
    public var identifier: String
    public var nextFireAt: String?
    public init(identifier: String, nextFireAt: String?) {
        self.identifier = identifier
        self.nextFireAt = nextFireAt
    }
    enum CodingKeys: String, CodingKey { case identifier, nextFireAt = "next_fire_at" }
}

/// `local.remove` and `local.find`: the pending (`delivered` false) or delivered requests with these
/// identifiers; null or [] means all of them.
public struct LocalFilter: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var identifiers: [String]?
    public var delivered: Bool?
    public init(appKey: String?, registrationID: String?, identifiers: [String]?, delivered: Bool?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.identifiers = identifiers
        self.delivered = delivered
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", identifiers, delivered
    }
}

/// The answer to `local.remove`: the identifiers removed.
public struct LocalRemoved: Codable, Equatable, Sendable {
    public var removed: [String]
    public init(removed: [String]) { self.removed = removed }
}

/// A pending local notification.
public struct LocalRequest: Codable, Equatable, Sendable {
    public var identifier: String
    public var content: LocalContent
    public var trigger: LocalTrigger
    public var nextFireAt: String?
    public init(identifier: String, content: LocalContent, trigger: LocalTrigger, nextFireAt: String?) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
        self.nextFireAt = nextFireAt
    }
    enum CodingKeys: String, CodingKey { case identifier, content, trigger, nextFireAt = "next_fire_at" }
}

/// A delivered local notification, or one the scheduler missed: a one-shot request that came due
/// while the service was down, longer ago than its lateness window, never fires; it is listed here
/// with `missed` true, `due_at` and no `fired_at`.
public struct LocalNotification: Codable, Equatable, Sendable {
    public var identifier: String
    public var content: LocalContent
    public var trigger: LocalTrigger
    /// When it fired; absent when it was missed.
    public var firedAt: String?
    /// When it was due.
    public var dueAt: String?
    /// True when it was due but not fired (absent otherwise).
    public var missed: Bool?
    public init(identifier: String, content: LocalContent, trigger: LocalTrigger, firedAt: String?,
                dueAt: String? = nil, missed: Bool? = nil) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
        self.firedAt = firedAt
        self.dueAt = dueAt
        self.missed = missed
    }
    enum CodingKeys: String, CodingKey {
        case identifier, content, trigger, firedAt = "fired_at", dueAt = "due_at", missed
    }
}

/// The answer to `local.find`: `requests` when pending ones were asked for, `notifications` when delivered.
public struct LocalFound: Codable, Equatable, Sendable {
    public var requests: [LocalRequest]?
    public var notifications: [LocalNotification]?
    public init(requests: [LocalRequest]? = nil, notifications: [LocalNotification]? = nil) {
        self.requests = requests
        self.notifications = notifications
    }
}

/// `location.report`: the device's position, which may fire its region triggers.
public struct LocationReport: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var latitude: Double?
    public var longitude: Double?
    public init(appKey: String?, registrationID: String?, latitude: Double?, longitude: Double?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.latitude = latitude
        self.longitude = longitude
    }
    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", latitude, longitude
    }
}

/// The answer to `location.report`: identifiers of the region triggers that fired.
public struct LocationReported: Codable, Equatable, Sendable {
    public var fired: [String]
    public init(fired: [String]) { self.fired = fired }
}
