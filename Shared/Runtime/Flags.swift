import Foundation

/// Parses a program's flags (swift-argument-parser style, without the dependency): defaults,
/// `PUSHBUS_*` environment variables, then the command line; `--help` prints usage.
public struct Flags: Sendable {
    public let program: String
    public let summary: String
    public let flags: [Flag]
    public private(set) var values: [String: String] = [:]
    /// Words on the command line that are not flags (a tool's subcommand and its arguments).
    public private(set) var arguments: [String] = []

    public init(program: String, summary: String, flags: [Flag]) {
        self.program = program
        self.summary = summary
        self.flags = flags + [.switch("help", help: "Show this help and exit.")]
    }

    /// Reads `environment` then `arguments`; throws on an unknown flag or a missing value.
    public mutating func parse(_ commandLine: [String], environment: [String: String]) throws(UsageError) {
        for flag in flags {
            if let value = environment[flag.environmentName] { values[flag.name] = value }
            else if let value = flag.defaultValue { values[flag.name] = value }
        }
        var rest = commandLine[...]
        while let word = rest.popFirst() {
            guard word.hasPrefix("--"), word.count > 2 else {
                arguments.append(word)
                continue
            }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let flag = flags.first(where: { $0.name == name }) else {
                throw UsageError("unknown flag --\(name) (see --help)")
            }
            if flag.isSwitch {
                values[name] = inline ?? "true"
            } else if let inline {
                values[name] = inline
            } else if let next = rest.popFirst() {
                values[name] = next
            } else {
                throw UsageError("--\(name) needs a value")
            }
        }
    }

    public func string(_ name: String) -> String { values[name] ?? "" }

    public func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(UsageError) -> Int {
        try Self.int(values[name] ?? "", name, in: range)
    }

    public func bool(_ name: String) -> Bool { values[name].map(Self.isOn) ?? false }

    /// `text`, the value of `--name`, as a whole number within `range`.
    public static func int(_ text: String, _ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// `text`, the value of `--name`, as an IPv4 `host:port`.
    public static func hostPort(_ text: String, _ name: String) throws(UsageError) -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw UsageError("--\(name) must be host:port, got \(text)")
        }
        return (String(text[..<colon]), port)
    }

    /// Whether a switch's text turns it on.
    static func isOn(_ text: String) -> Bool { ["1", "true", "yes", "on"].contains(text.lowercased()) }

    public var wantsHelp: Bool { bool("help") }

    public var usage: String {
        var text = "\(program): \(summary)\n\nUSAGE: \(program) [flags]\n\nFLAGS:\n"
        for flag in flags {
            let left = flag.isSwitch ? "--\(flag.name)" : "--\(flag.name) <value>"
            var line = "  " + left.padding(toLength: max(left.count, 28), withPad: " ", startingAt: 0) + "  " + flag.help
            if let value = flag.defaultValue { line += " (default: \(value))" }
            if flag.name != "help" { line += " [\(flag.environmentName)]" }
            text += line + "\n"
        }
        return text
    }

    /// Parses the process's own command line and environment. Prints usage and exits 0 on `--help`;
    /// prints a one-line reason and exits 64 on a usage error.
    public static func parseOrExit(program: String, summary: String, flags: [Flag]) -> Flags {
        var parsed = Flags(program: program, summary: summary, flags: flags)
        do {
            try parsed.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        } catch {
            exitUsage(program, error)
        }
        if parsed.wantsHelp {
            print(parsed.usage, terminator: "")
            exit(0)
        }
        return parsed
    }

    /// Prints `program: error: reason` and exits 64 (EX_USAGE).
    public static func exitUsage(_ program: String, _ error: UsageError) -> Never {
        FileHandle.standardError.write(Data("\(program): error: \(error.message)\n".utf8))
        exit(64)
    }
}
