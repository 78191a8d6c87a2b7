import Foundation

/// The seed's `MTPushNotificationContent`: what the local notification shows.
public struct NotificationContent {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var badge: Int?
    public var sound: String?
    public var categoryIdentifier: String?
    public var userInfo: [String: Any]?

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, badge: Int? = nil, sound: String? = nil,
                categoryIdentifier: String? = nil, userInfo: [String: Any]? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.sound = sound
        self.categoryIdentifier = categoryIdentifier
        self.userInfo = userInfo
    }

    var json: [String: Any] {
        var fields: [String: Any] = [:]
        fields["title"] = title
        fields["subtitle"] = subtitle
        fields["body"] = body
        fields["badge"] = badge
        fields["sound"] = sound
        fields["category"] = categoryIdentifier
        fields["user_info"] = userInfo
        return fields
    }
}

/// The seed's `MTPushNotificationTrigger`: after an interval, at calendar components, at a date, or
/// on entering or leaving a region; `repeats` as the seed's `repeat`.
public struct NotificationTrigger {
    public enum Kind {
        case timeInterval(TimeInterval)
        case dateComponents(DateComponents, timeZone: TimeZone?)
        case fireDate(Date)
        case region(latitude: Double, longitude: Double, radius: Double, notifyOnEntry: Bool, notifyOnExit: Bool)
    }

    public var kind: Kind
    public var repeats: Bool

    public init(_ kind: Kind, repeats: Bool = false) {
        self.kind = kind
        self.repeats = repeats
    }

    var json: [String: Any] {
        switch kind {
        case .timeInterval(let seconds):
            return ["time_interval": seconds, "repeat": repeats]
        case .dateComponents(let components, let timeZone):
            var parts: [String: Any] = [:]
            parts["year"] = components.year
            parts["month"] = components.month
            parts["day"] = components.day
            parts["weekday"] = components.weekday
            parts["hour"] = components.hour
            parts["minute"] = components.minute
            parts["second"] = components.second
            var fields: [String: Any] = ["date_components": parts, "repeat": repeats]
            fields["timezone"] = timeZone?.identifier
            return fields
        case .fireDate(let date):
            let formatter = ISO8601DateFormatter()
            return ["fire_date": formatter.string(from: date)]
        case .region(let latitude, let longitude, let radius, let entry, let exit):
            return ["region": ["latitude": latitude, "longitude": longitude, "radius": radius, "notify_on_entry": entry,
                               "notify_on_exit": exit, "repeat": repeats] as [String: Any]]
        }
    }
}

/// The seed's `MTPushNotificationRequest`: an identifier (the same one replaces the request), the
/// content, the trigger, and what the server answered (`identifier`, `next_fire_at`, or `code`).
public struct NotificationRequest {
    public var requestIdentifier: String
    public var content: NotificationContent
    public var trigger: NotificationTrigger
    public var completionHandler: (([String: Any]) -> Void)?

    public init(requestIdentifier: String, content: NotificationContent, trigger: NotificationTrigger,
                completionHandler: (([String: Any]) -> Void)? = nil) {
        self.requestIdentifier = requestIdentifier
        self.content = content
        self.trigger = trigger
        self.completionHandler = completionHandler
    }
}

/// The seed's `MTPushNotificationIdentifier`: which requests (nil or empty: all), delivered ones or
/// pending ones, and for `findNotification` where the results go.
public struct NotificationIdentifier {
    public var identifiers: [String]?
    public var delivered: Bool
    public var findCompletionHandler: (([[String: Any]]) -> Void)?

    public init(identifiers: [String]? = nil, delivered: Bool = false, findCompletionHandler: (([[String: Any]]) -> Void)? = nil) {
        self.identifiers = identifiers
        self.delivered = delivered
        self.findCompletionHandler = findCompletionHandler
    }
}

/// The seed's `MTPUSHLiveActivityTokenCompletion`.
public typealias LiveActivityTokenCompletion = (_ code: Int, _ liveActivityID: String?, _ token: Data?, _ seq: Int) -> Void

/// Local notifications kept by the scheduler, pages for in-app messages, delivery and open reports,
/// the VoIP and Live Activity tokens (seed 000).
extension PushBusClient {
    // MARK: local notifications

    /// Adds (or, with the same identifier, replaces) a local notification the server fires on time.
    public func addNotification(_ request: NotificationRequest) {
        var fields: [String: Any] = ["identifier": request.requestIdentifier, "content": request.content.json]
        fields["trigger"] = request.trigger.json
        perform("local.add", fields) { reply in request.completionHandler?(reply) }
    }

    /// Removes pending (or, with `delivered`, delivered) local notifications; nil removes them all.
    public func removeNotification(_ identifier: NotificationIdentifier?, completion: ((Int) -> Void)? = nil) {
        var fields: [String: Any] = ["delivered": identifier?.delivered ?? false]
        fields["identifiers"] = identifier?.identifiers ?? []
        perform("local.remove", fields) { reply in completion?(Self.code(reply)) }
    }

    /// Finds pending (or delivered) local notifications; the results go to `findCompletionHandler`.
    public func findNotification(_ identifier: NotificationIdentifier) {
        let fields: [String: Any] = ["identifiers": identifier.identifiers ?? [], "delivered": identifier.delivered]
        perform("local.find", fields) { reply in identifier.findCompletionHandler?(reply["requests"] as? [[String: Any]] ?? []) }
    }

    // MARK: pages, reports

    /// The app entered `page`: an in-app message waiting for it is shown (seed 000, In-App Messaging).
    public func pageEnterTo(_ page: String) { perform("page.enter", ["page": page]) { _ in } }

    public func pageLeave(_ page: String) { perform("page.leave", ["page": page]) { _ in } }

    /// A notification was received, displayed or opened (`kind`: `received`, `displayed`, `opened`).
    public func report(_ kind: String, msgID: String, completion: ((Int) -> Void)? = nil) {
        perform("stats.report", ["kind": kind, "msg_id": msgID]) { reply in completion?(Self.code(reply)) }
    }

    /// The user's answer to the notification permission (`granted`, `denied`, `provisional`): a
    /// push marked `notification_reminder` reaches a device that denied notifications over the
    /// live channel, as a reminder, instead of through APNs.
    public func setNotificationAuthorization(_ status: String, completion: ((PushBusError?) -> Void)? = nil) {
        guard ["granted", "denied", "provisional"].contains(status) else {
            return refuse(PushBusCode.invalidRequest) { _ in completion?(PushBusError(code: PushBusCode.invalidRequest, message: "granted, denied or provisional")) }
        }
        perform("device.update", ["notification_authorization": status]) { reply in completion?(Self.error(reply)) }
    }

    // MARK: VoIP and Live Activity tokens

    /// The PushKit token, for VoIP pushes (nil unregisters).
    public func registerVoipToken(_ token: Data?, completion: ((PushBusError?) -> Void)? = nil) {
        perform("device.update", ["voip_token": token.map(\.hexString) as Any? ?? NSNull()]) { reply in completion?(Self.error(reply)) }
    }

    /// A Live Activity's push token, under the app's `liveActivityID` (at most 24 bytes).
    public func registerLiveActivity(_ liveActivityID: String, pushToken: Data?, completion: LiveActivityTokenCompletion? = nil, seq: Int) {
        guard !liveActivityID.isEmpty, liveActivityID.utf8.count <= 24 else {
            return refuse(PushBusCode.invalidRequest) { _ in completion?(PushBusCode.invalidRequest, liveActivityID, pushToken, seq) }
        }
        let fields: [String: Any] = ["live_activity_id": liveActivityID, "token": pushToken.map(\.hexString) as Any? ?? NSNull()]
        perform("device.live_activity_token", fields) { reply in completion?(Self.code(reply), liveActivityID, pushToken, seq) }
    }

    /// A Live Activity type's push-to-start token.
    public func registerLiveActivity(_ activityAttributes: String, pushToStartToken: Data?, completion: LiveActivityTokenCompletion? = nil,
                                     seq: Int) {
        let fields: [String: Any] = ["activity_attributes": activityAttributes, "token": pushToStartToken.map(\.hexString) as Any? ?? NSNull()]
        perform("device.live_activity_start_token", fields) { reply in completion?(Self.code(reply), activityAttributes, pushToStartToken, seq) }
    }
}
