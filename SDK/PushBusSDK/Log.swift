import Foundation

/// The seed's `setDebugMode` / `setLogOFF`: what the SDK says about itself (retries, reconnects,
/// refusals), on standard error. Quiet but for errors by default.
public enum PushBusLog {
    public enum Level: Int, Comparable {
        case off = 0, error = 1, debug = 2
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var current = Level.error

    public static var level: Level {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    static func say(_ level: Level, _ message: @autoclosure () -> String) {
        guard level <= self.level, level != .off else { return }
        FileHandle.standardError.write(Data("PushBusSDK: \(message())\n".utf8))
    }
}

extension PushBusClient {
    /// Everything the SDK does, on standard error (the seed's `setDebugMode`).
    public static func setDebugMode() { PushBusLog.level = .debug }

    /// Nothing at all (the seed's `setLogOFF`).
    public static func setLogOFF() { PushBusLog.level = .off }
}
