import Foundation
import WireTime

/// A logfmt-style logger in the manner of swift-log: a constant message, data as dot-keyed metadata,
/// one line per event: `time level label: k=v … message`. Writes whole lines to stderr.
public struct Logger: Sendable {
    public enum Level: Int, Comparable, CaseIterable, Sendable {
        case trace, debug, info, notice, warning, error, critical

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { "\($0)" == name.lowercased() }) else { return nil }
            self = level
        }

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let label: String
    public var level: Level

    public init(label: String, level: Level = .info) {
        self.label = label
        self.level = level
    }

    public func log(_ level: Level, _ message: String, _ metadata: KeyValuePairs<String, Any> = [:]) {
        guard level >= self.level else { return }
        var line = "\(Self.timestamp()) \(level) \(label):"
        for (key, value) in metadata { line += " \(key)=\(Self.quote(String(describing: value)))" }
        line += " \(message)\n"
        line.withCString { _ = write(2, $0, strlen($0)) }
    }

    public func trace(_ message: String, _ metadata: KeyValuePairs<String, Any> = [:]) { log(.trace, message, metadata) }
    public func debug(_ message: String, _ metadata: KeyValuePairs<String, Any> = [:]) { log(.debug, message, metadata) }
    public func info(_ message: String, _ metadata: KeyValuePairs<String, Any> = [:]) { log(.info, message, metadata) }
    public func notice(_ message: String, _ metadata: KeyValuePairs<String, Any> = [:]) { log(.notice, message, metadata) }
    public func warning(_ message: String, _ metadata: KeyValuePairs<String, Any> = [:]) { log(.warning, message, metadata) }
    public func error(_ message: String, _ metadata: KeyValuePairs<String, Any> = [:]) { log(.error, message, metadata) }

    static func quote(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "=" || $0 == "\"" || $0.isNewline }
        guard needsQuotes else { return value }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }

    static func timestamp() -> String {
        RFC3339.string(from: Date(), fractional: true)
    }
}
