import JSON
import Schema

/// A fired local notification as the push that shows it on its device: an APNs alert with the
/// request's title, subtitle, body, sound and category, its user_info as extras; its badge is
/// set on the plan as a fixed value (`PushContent.fixBadge`), since it is the app's own number.
enum LocalReminder {
    static func push(_ fired: LocalFiredEvent) -> PushSend {
        let content = fired.content
        var alert = JSONObject()
        if let title = content.title { alert["title"] = .string(title) }
        if let subtitle = content.subtitle { alert["subtitle"] = .string(subtitle) }
        if let body = content.body { alert["body"] = .string(body) }
        var ios = JSONObject()
        if !alert.isEmpty { ios["alert"] = .object(alert) }
        if let sound = content.sound { ios["sound"] = .string(sound) }
        if let category = content.category { ios["category"] = .string(category) }
        if let info = content.userInfo, !info.isEmpty { ios["extras"] = .object(info) }
        let body: JSONValue = .object(["platform": .string("ios"), "notification": .object(["ios": .object(ios)])])
        return PushSend(appKey: fired.appKey, to: .object(["registration_id": .array([.string(fired.registrationID)])]), body: body)
    }
}
