import Foundation
import Runtime

/// The analytics service's own settings: the session timeout (30 minutes unless set), for every app
/// or per app. Flags `--session-timeout` and `--app-session-timeouts`, or `PUSHBUS_SESSION_TIMEOUT` and
/// `PUSHBUS_APP_SESSION_TIMEOUTS`.
public struct AnalyticsSettings: Sendable, Equatable {
    /// Seconds without an event after which the next event opens a new session.
    public var sessionTimeout: Double
    /// app_key → its own session timeout in seconds.
    public var appSessionTimeouts: [String: Double]

    public init(sessionTimeout: Double = 1800, appSessionTimeouts: [String: Double] = [:]) {
        self.sessionTimeout = sessionTimeout
        self.appSessionTimeouts = appSessionTimeouts
    }

    /// The session timeout of an app.
    public func sessionTimeout(for appKey: String) -> Double { appSessionTimeouts[appKey] ?? sessionTimeout }

    public static let flags: [Flag] = [
        Flag("session-timeout", default: "1800",
             help: "Seconds of inactivity after which an app's next event starts a new session (1..86400)."),
        Flag("app-session-timeouts", default: "",
             help: "Per-app session timeouts overriding --session-timeout: app_key=seconds, comma-separated."),
    ]

    public init(_ flags: Flags) throws(UsageError) {
        sessionTimeout = Double(try flags.int("session-timeout", in: Self.range))
        appSessionTimeouts = try Self.parse(flags.string("app-session-timeouts"))
    }

    static let range = 1...86_400

    /// `app1=600,app2=120` → [app1: 600, app2: 120].
    static func parse(_ text: String) throws(UsageError) -> [String: Double] {
        var result: [String: Double] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let seconds = Int(parts[1]), range.contains(seconds) else {
                throw UsageError("--app-session-timeouts: \(item) is not app_key=seconds (1..86400)")
            }
            result[parts[0]] = Double(seconds)
        }
        return result
    }
}
