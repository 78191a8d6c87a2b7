import Foundation
import JSON
import Schema

/// Writes a realistic recording for N devices: every device registers (and, when the mix has
/// analytics, starts an MA session), then M commands drawn from the mix for random devices, spaced
/// at `rate` commands per second. The same seed gives the same file. Replies are not known yet, so
/// each registration carries the ID the replay will map to the one the server gives out.
public struct TrafficGenerator: Sendable {
    public var devices: Int
    public var commands: Int
    public var seed: UInt64
    public var mix: TrafficMix
    public var rate: Double
    public var appKey: String

    public init(devices: Int, commands: Int, seed: UInt64, mix: TrafficMix = .default, rate: Double = 1000,
                appKey: String = "replay") {
        self.devices = devices
        self.commands = commands
        self.seed = seed
        self.mix = mix
        self.rate = rate
        self.appKey = appKey
    }

    static let vocabulary = (0..<200).map { "t\($0)" } + ["vip", "gold", "女性", "game", "old_page", "sports", "news", "ios_17"]

    /// Calls each line to `write`, in order.
    public func generate(_ write: (RecordedCall) throws -> Void) throws {
        var random = SplitMix64(seed: seed)
        var clock = 0.0
        let step = 1000 / rate
        func next(_ command: String, _ payload: [String: JSONValue], reply: JSONValue? = nil) throws {
            try write(RecordedCall(t: (clock * 1000).rounded() / 1000, command: command, payload: .object(payload), reply: reply))
            clock += step
        }
        // The app first, adopting the generated app key (admin-signed when replayed).
        try next("app.create", ["name": .string(appKey), "app_key": .string(appKey)],
                 reply: .object(["code": .number(0), "app_key": .string(appKey)]))
        var registrationIDs: [String] = []
        var euids: [String] = []
        registrationIDs.reserveCapacity(devices)
        for n in 0..<devices {
            let id = hex(&random, bytes: 10)
            registrationIDs.append(id)
            try next("device.register", ["app_key": .string(appKey), "platform": .string(n % 3 == 0 ? "android" : "ios"),
                                         "device_id": .string("device-\(n)")],
                     reply: .object(["code": .number(0), "registration_id": .string(id), "is_new": .bool(true)]))
        }
        if mix.usesAnalytics {
            for n in 0..<devices {
                let euid = "e" + hex(&random, bytes: 10)
                euids.append(euid)
                try next("ma.start", ["app_key": .string(appKey), "device_id": .string("device-\(n)")],
                         reply: .object(["code": .number(0), "euid": .string(euid)]))
            }
        }
        for _ in 0..<commands {
            let device = Int.random(in: 0..<devices, using: &random)
            let kind = mix.pick(&random)
            var payload: [String: JSONValue] = ["app_key": .string(appKey)]
            if kind.needsEUID {
                payload["euid"] = .string(euids[device])
            } else {
                payload["registration_id"] = .string(registrationIDs[device])
            }
            payload.merge(fields(kind, device: device, &random)) { $1 }
            try next(kind.rawValue, payload)
        }
    }

    /// Writes the recording to `path` as JSON lines.
    public func write(to path: String) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw ReplayError.cannotWrite(path: path)
        }
        defer { try? file.close() }
        var buffer = Data()
        var count = 0
        try generate { call in
            buffer.append(call.line)
            buffer.append(0x0A)
            count += 1
            if buffer.count > 1 << 20 {
                file.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        file.write(buffer)
        return count
    }

    private func fields<R: RandomNumberGenerator>(_ kind: TrafficMix.Kind, device: Int, _ random: inout R) -> [String: JSONValue] {
        func tags(_ count: ClosedRange<Int>) -> JSONValue {
            .array((0..<Int.random(in: count, using: &random)).map { _ in .string(Self.vocabulary.randomElement(using: &random)!) })
        }
        switch kind {
        case .tagsAdd, .tagsDelete: return ["tags": tags(1...5)]
        case .tagsSet: return ["tags": tags(1...8)]
        case .tagsGet, .aliasGet, .badgeGet: return [:]
        case .tagsValid: return ["tag": .string(Self.vocabulary.randomElement(using: &random)!)]
        case .aliasSet: return ["alias": .string("user_\(device)")]
        case .channelSubscribe: return ["channel": .string("match-\(Int.random(in: 0..<50, using: &random))")]
        case .badgeSet: return ["value": .number(Double(Int.random(in: 0...99, using: &random)))]
        case .localAdd:
            return ["identifier": .string("reminder-\(Int.random(in: 0..<10, using: &random))"),
                    "content": .object(["title": .string("Reminder"), "body": .string("Time to come back")]),
                    "trigger": .object(["time_interval": .number(86_400)])]
        case .localFind: return ["delivered": .bool(false)]
        case .maEvents:
            let events = (0..<50).map { n -> JSONValue in
                .object(["name": .string(n % 5 == 0 ? "purchase" : "page_view"),
                         "properties": .object(["page": .string("p\(n % 7)")]),
                         "time": .string("2026-11-29T10:00:\(String(format: "%02d", n % 60))Z")])
            }
            return ["events": .array(events)]
        case .statsReport:
            return ["kind": .string(["received", "displayed", "opened"].randomElement(using: &random)!),
                    "msg_id": .string("msg-\(Int.random(in: 0..<100, using: &random))")]
        }
    }

    private func hex<R: RandomNumberGenerator>(_ random: inout R, bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
    }
}
