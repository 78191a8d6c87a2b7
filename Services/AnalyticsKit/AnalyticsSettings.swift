import Foundation
import Runtime

/// The analytics service's own settings: the session timeout (30 minutes unless set), for every app
/// or per app. Flags `--session-timeout` and `--app-session-timeouts`, or `PUSHBUS_SESSION_TIMEOUT` and
/// `PUSHBUS_APP_SESSION_TIMEOUTS`.
public struct AnalyticsSettings: Options, Equatable {
    /// Seconds without an event after which the next event opens a new session.
    public var sessionTimeout: Double = 1800
    /// app_key → its own session timeout in seconds.
    public var appSessionTimeouts: [String: Double] = [:]

    public init() {}

    /// The session timeout of an app.
    public func sessionTimeout(for appKey: String) -> Double { appSessionTimeouts[appKey] ?? sessionTimeout }

    public static let options: [Option<AnalyticsSettings>] = [
        .int("session-timeout", \.sessionTimeout, in: range,
             help: "Seconds of inactivity after which an app's next event starts a new session (1..86400)."),
        Option("app-session-timeouts", \.appSessionTimeouts,
               help: "Per-app session timeouts overriding --session-timeout: app_key=seconds, comma-separated.",
               format: { timeouts in timeouts.sorted { $0.key < $1.key }.map { "\($0.key)=\(Int($0.value))" }.joined(separator: ",") },
               parse: { text throws(UsageError) in try parse(text) }),
    ]

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
