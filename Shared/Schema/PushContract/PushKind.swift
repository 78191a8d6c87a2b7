/// What a push sends, which decides APNs' `apns-push-type`, topic and priority, or that it goes
/// over the device channel instead of APNs.
public enum PushKind: String, Codable, Sendable {
    /// A visible notification (alert, sound or badge).
    case alert
    /// `content-available` alone: wakes the app, shows nothing; APNs wants priority 5.
    case background
    case voip
    case liveActivity = "liveactivity"
    /// A custom message (`body.message`): over the device channel, to the app while it runs.
    case message
    /// An in-app message (`body.inapp_message`): over the device channel, shown on its target pages.
    case inapp

    /// Whether it travels over the device channel rather than through APNs.
    public var isChannel: Bool { self == .message || self == .inapp }

    /// `apns-topic` for an app whose bundle id is `bundleID`.
    public func topic(bundleID: String) -> String {
        switch self {
        case .alert, .background, .message, .inapp: bundleID
        case .voip: bundleID + ".voip"
        case .liveActivity: bundleID + ".push-type.liveactivity"
        }
    }

    public var priority: Int { self == .background ? 5 : 10 }

    /// The largest payload APNs takes for this kind, in bytes.
    public var maxPayloadBytes: Int { self == .voip ? 5120 : 4096 }

    /// Which of a device's tokens it goes to (`device.tokens_invalid`'s `kind`).
    public var tokenKind: String {
        switch self {
        case .alert, .background, .message, .inapp: "apns"
        case .voip: "voip"
        case .liveActivity: "live_activity"
        }
    }
}
