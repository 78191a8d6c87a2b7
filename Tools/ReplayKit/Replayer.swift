import Client
import Foundation
import JSON
import Majordomo
import Runtime
import Schema
import ZeroMQ

/// Replays recorded calls against a gateway (or the device edge: `ReplayTransport`): at the recorded pace, faster, or as fast as a window
/// of in-flight requests allows over several connections. IDs the server gives out (registration
/// IDs, EUIDs, app keys) are mapped to this run's as their calls answer; a call that uses one waits
/// for it. `run()` blocks; it owns its sockets. A gateway that answers nothing for a whole timeout
/// while requests wait ends the run with `ReplayError.gatewaySilent`, rather than letting every
/// window of requests time out in turn.
public final class Replayer {
    private let options: ReplayOptions
    private let calls: [PreparedCall]
    private var mapping: [String: String] = [:]
    private var completed: [Bool]
    private var sentAt: [Int64]
    private var latencies: [UInt32]
    private var codes: [Int: Int] = [:]
    private var mismatches: [ReplaySummary.Mismatch] = []
    private var checked = 0
    private var matched = 0
    private var timeouts = 0
    private let signer: Signer

    /// Throws when `options.idsFile` exists but holds no mapping of IDs, or cannot be written.
    public init(_ recorded: [RecordedCall], options: ReplayOptions) throws {
        self.options = options
        if let path = options.idsFile {
            mapping = try ReplayIDs.read(path)
            try ReplayIDs.checkWritable(path)
        }
        var producers: [String: Int] = [:]
        for (index, call) in recorded.enumerated() {
            if case .object(let reply)? = call.reply {
                for key in ["registration_id", "euid", "app_key"] where call.command != "device.get" {
                    if let id = reply[key]?.string, producers[id] == nil { producers[id] = index }
                }
            }
        }
        let carried = mapping
        calls = recorded.enumerated().map {
            PreparedCall($1, index: $0, producers: producers, carried: carried, connections: options.connections)
        }
        signer = Signer(secrets: options.secrets)
        completed = Array(repeating: false, count: recorded.count)
        sentAt = Array(repeating: 0, count: recorded.count)
        latencies = Array(repeating: 0, count: recorded.count)
    }

    public func run() throws -> ReplaySummary {
        let context = try Context()
        let transport: ReplayTransport = try options.edge.map { try EdgeTransport(address: $0, connections: options.connections) }
            ?? MajordomoTransport(endpoint: options.endpoint, serverKey: options.serverKey, connections: options.connections, context: context)
        defer { transport.close() }
        var poller = Poller(transport.sockets, fds: transport.fds)
        let total = calls.count
        var next = 0
        var inFlight = 0
        var done = 0
        var oldest = 0
        let start = Clock.microseconds()
        let cpuAtStart = Clock.processCPUSeconds()
        var lastReport = start
        var lastReply = start
        var interval: [UInt32] = []

        while done < total {
            let now = Clock.microseconds()
            var waitUntil: Int64? = nil
            while next < total && inFlight < options.window {
                let call = calls[next]
                if let dependency = call.dependency, !completed[dependency] { break }
                if let speed = options.speed {
                    let due = start + Int64(call.t * 1000 / speed)
                    if due > now {
                        waitUntil = due
                        break
                    }
                }
                let body = call.body(signedBy: signer, mapping: mapping)
                try transport.send(index: next, service: call.service, body: body, connection: call.connection)
                sentAt[next] = Clock.microseconds()
                next += 1
                inFlight += 1
            }
            // Sleep until the next call is due, rounded up to poll's whole milliseconds: rounding down
            // would spin through every sub-millisecond gap, and a spinning client takes the CPU from
            // the stack it measures on a shared machine. Replies still wake the poll at once.
            let timeout = waitUntil.map { max(0, Int(($0 - Clock.microseconds() + 999) / 1000)) } ?? 100
            let ready = try poller.poll(timeout: inFlight == 0 && waitUntil == nil ? 0 : timeout)
            try transport.replies(ready) { index, reply in
                guard index >= 0, index < total, sentAt[index] != 0, !completed[index] else { return }
                let latency = UInt32(clamping: Clock.microseconds() - sentAt[index])
                lastReply = Clock.microseconds()
                finish(index, reply: reply, latency: latency)
                interval.append(latency)
                inFlight -= 1
                done += 1
            }
            // Requests past the timeout free their place in the window and count as timed out.
            let expired = Clock.microseconds() - Int64(options.timeoutMilliseconds) * 1000
            while oldest < next {
                if completed[oldest] { oldest += 1; continue }
                guard sentAt[oldest] < expired else { break }
                guard lastReply >= sentAt[oldest] else { throw ReplayError.gatewaySilent(seconds: Double(options.timeoutMilliseconds) / 1000, answered: done) }
                completed[oldest] = true
                timeouts += 1
                inFlight -= 1
                done += 1
                oldest += 1
            }
            if options.progress && Clock.microseconds() - lastReport >= 1_000_000 {
                report(done: done, total: total, start: start, interval: interval, since: lastReport)
                interval.removeAll(keepingCapacity: true)
                lastReport = Clock.microseconds()
            }
        }
        if options.progress { FileHandle.standardError.write(Data("\n".utf8)) }
        let seconds = Double(Clock.microseconds() - start) / 1_000_000
        if let path = options.idsFile { try ReplayIDs.write(mapping, to: path) }
        let answered = latencies.filter { $0 > 0 }
        return ReplaySummary(
            commands: total, completed: total - timeouts, timeouts: timeouts, seconds: seconds,
            commandsPerSecond: Double(total) / max(seconds, 1e-9), clientCPUSeconds: Clock.processCPUSeconds() - cpuAtStart,
            latency: LatencyStats(microseconds: answered),
            codes: Dictionary(uniqueKeysWithValues: codes.map { (String($0.key), $0.value) }),
            verify: options.verify ? .init(checked: checked, matched: matched, mismatches: mismatches) : nil)
    }

    private func finish(_ index: Int, reply: Data, latency: UInt32) {
        completed[index] = true
        latencies[index] = max(1, latency)
        let code = ReplySniffer.code(reply) ?? ResultCode.internalError.rawValue
        codes[code, default: 0] += 1
        let call = calls[index]
        let needsJSON = !call.produces.isEmpty || (options.verify && call.recordedReply != nil)
        guard needsJSON, let got = try? JSONTreeDecoder().decode(JSONValue.self, from: reply) else { return }
        for (key, old) in call.produces {
            if let new = got[key]?.string { mapping[old] = new }
        }
        if options.verify, let recorded = call.recordedReply {
            checked += 1
            if ReplyComparison.matches(recorded: recorded, got: got, mapping: mapping) {
                matched += 1
            } else if mismatches.count < 100 {
                mismatches.append(.init(line: index, command: call.command,
                                        expected: recorded, got: got))
            }
        }
    }

    private func report(done: Int, total: Int, start: Int64, interval: [UInt32], since: Int64) {
        let elapsed = Double(Clock.microseconds() - start) / 1_000_000
        let rate = Double(interval.count) / (Double(Clock.microseconds() - since) / 1_000_000)
        let stats = LatencyStats(microseconds: interval)
        let errors = codes.filter { $0.key != 0 }.values.reduce(0, +) + timeouts
        let line = String(format: "\r%6.1f s  %d/%d done  %.0f/s  p50 %.2f ms  p99 %.2f ms  errors %d   ",
                          elapsed, done, total, rate, stats.p50, stats.p99, errors)
        FileHandle.standardError.write(Data(line.utf8))
    }
}

public enum ReplayError: Error, CustomStringConvertible {
    case gatewaySilent(seconds: Double, answered: Int)
    /// The recording cannot be created.
    case cannotWrite(path: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path):
            "cannot create the recording \(path)"
        case .gatewaySilent(let seconds, let answered):
            "the gateway answered nothing for \(String(format: "%g", seconds)) s while requests waited (\(answered) answered before); is it running?"
        }
    }
}
