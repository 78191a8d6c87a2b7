import JSON
import Schema

/// What a replay did, as `--json` writes it.
public struct ReplaySummary: Codable, Sendable {
    public var commands: Int
    public var completed: Int
    public var timeouts: Int
    public var seconds: Double
    public var commandsPerSecond: Double
    /// The replay client's own CPU time over the replay (reading the recording not counted), so a
    /// load test shows when the client, sharing the machine, is what limits it.
    public var clientCPUSeconds: Double
    public var latency: LatencyStats
    /// Result code → how many replies carried it.
    public var codes: [String: Int]
    public var verify: Verification?

    enum CodingKeys: String, CodingKey {
        case commands, completed, timeouts, seconds, commandsPerSecond = "commands_per_second",
             clientCPUSeconds = "client_cpu_seconds", latency, codes, verify
    }

    public struct Verification: Codable, Sendable {
        public var checked: Int
        public var matched: Int
        public var mismatches: [Mismatch]
    }

    public struct Mismatch: Codable, Sendable {
        public var line: Int
        public var command: String
        public var expected: JSONValue
        public var got: JSONValue
    }

    /// Human-readable lines.
    public var text: String {
        var lines = [
            "commands      \(commands) (\(completed) answered, \(timeouts) timed out)",
            "time          \(String(format: "%.2f", seconds)) s",
            "rate          \(Int(commandsPerSecond)) commands/s",
            "client cpu    \(String(format: "%.2f", clientCPUSeconds)) s (\(String(format: "%.1f", clientCPUSeconds * 1e6 / Double(max(commands, 1)))) µs a command)",
            "latency (ms)  p50 \(f(latency.p50))  p90 \(f(latency.p90))  p99 \(f(latency.p99))  p99.9 \(f(latency.p999))  max \(f(latency.max))",
            "codes         " + codes.sorted { $0.value > $1.value }.map { "\($0.key): \($0.value)" }.joined(separator: ", "),
        ]
        if let verify {
            lines.append("verify        \(verify.matched)/\(verify.checked) replies as recorded")
            for mismatch in verify.mismatches.prefix(10) {
                lines.append("  line \(mismatch.line + 1) \(mismatch.command): expected \(json(mismatch.expected)) got \(json(mismatch.got))")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func f(_ value: Double) -> String { String(format: "%.3f", value) }
    private func json(_ value: JSONValue) -> String { String(decoding: WireCodec.encode(value), as: UTF8.self) }
}
