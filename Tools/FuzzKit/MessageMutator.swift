import Foundation
import JSON
import Majordomo
import ReplayKit
import Schema
import ZeroMQ

/// Makes hostile traffic for the gateway, reproducible from a seed: random frames, broken MDP
/// envelopes, and device commands whose payloads are mutated valid ones (wrong JSON types, bad
/// UTF-8, huge and empty fields, missing fields, truncation, deep nesting).
public struct MessageMutator {
    public enum Kind: CaseIterable, Sendable {
        case randomFrames, brokenEnvelope, workerGarbage, mutatedPayload
    }

    /// A message to send and whether the gateway can answer it: as a DEALER sends it, it starts with
    /// the empty delimiter and a header that is not the worker protocol's.
    public struct Shot {
        public let message: Message
        public init(message: Message) { self.message = message }
        public var addressable: Bool { message.count >= 2 && message[0].isEmpty && message[1] != MDP.worker }
    }

    private var random: SplitMix64
    private let templates: [(command: String, payload: [String: JSONValue])]

    public init(seed: UInt64, registrationIDs: [String]) {
        random = SplitMix64(seed: seed)
        let id = JSONValue.string(registrationIDs.first ?? "00000000000000000000")
        let app = JSONValue.string("fuzz")
        templates = [
            ("device.register", ["app_key": app, "platform": .string("ios"), "device_id": .string("fuzz-device")]),
            ("device.get", ["app_key": app, "registration_id": id]),
            ("device.update", ["app_key": app, "registration_id": id, "language": .string("en"), "voip_token": .string("ab")]),
            ("device.mobile", ["app_key": app, "registration_id": id, "mobile": .string("+1-202")]),
            ("device.live_activity_token", ["app_key": app, "registration_id": id, "live_activity_id": .string("a"), "token": .string("aa")]),
            ("tags.add", ["app_key": app, "registration_id": id, "tags": .array([.string("vip"), .string("gold")])]),
            ("tags.valid", ["app_key": app, "registration_id": id, "tag": .string("vip")]),
            ("alias.set", ["app_key": app, "registration_id": id, "alias": .string("u1")]),
            ("channel.sync", ["app_key": app, "registration_id": id, "subscriptions": .array([.object(["channel": .string("c")])])]),
            ("audience.resolve", ["app_key": app, "tag": .array([.string("vip")]), "limit": .number(10)]),
            ("tags.count", ["app_key": app, "tags": .array([.string("vip")])]),
        ]
    }

    public mutating func next() -> Shot {
        switch Kind.allCases.randomElement(using: &random)! {
        case .randomFrames:
            return Shot(message: Message((0..<Int.random(in: 1...8, using: &random)).map { _ in bytes(0...64) }))
        case .brokenEnvelope:
            var frames = [Data(), MDP.client]
            switch Int.random(in: 0..<4, using: &random) {
            case 0: break                                                   // no service frame
            case 1: frames.append(Data())                                   // empty service name
            case 2: frames.append(bytes(1...300))                           // random (maybe invalid UTF-8 or too long) name
            default: frames += [Data("device".utf8)] + (0..<Int.random(in: 0...4, using: &random)).map { _ in bytes(0...40) }
            }
            return Shot(message: Message(frames))
        case .workerGarbage:
            let command = Data([UInt8.random(in: 0...9, using: &random)])
            return Shot(message: Message([Data(), MDP.worker, command] + (0..<Int.random(in: 0...3, using: &random)).map { _ in bytes(0...16) }))
        case .mutatedPayload:
            let template = templates.randomElement(using: &random)!
            return Shot(message: Message([Data(), MDP.client, Data("device".utf8), Data(template.command.utf8), mutate(template.payload)]))
        }
    }

    private mutating func mutate(_ payload: [String: JSONValue]) -> Data {
        var fields = payload
        let key = fields.keys.sorted().randomElement(using: &random)!
        switch Int.random(in: 0..<9, using: &random) {
        case 0: fields[key] = .number(Double(Int.random(in: -5...5, using: &random)))      // wrong type
        case 1: fields[key] = .string("")                                                    // empty
        case 2: fields[key] = .string(String(repeating: "x", count: Int.random(in: 1_000...200_000, using: &random)))  // huge
        case 3: fields[key] = nil                                                            // missing
        case 4: fields[key] = .array([.object([:]), .null, .bool(true)])                     // wrong shape
        case 5: fields[key] = .null
        case 6:                                                                             // bad UTF-8 spliced in
            var data = WireCodec.encode(JSONValue.object(fields))
            data.insert(contentsOf: [0xFF, 0xC3, 0x28], at: Int.random(in: 1..<data.count, using: &random))
            return data
        case 7:                                                                             // truncated
            let data = WireCodec.encode(JSONValue.object(fields))
            return data.prefix(Int.random(in: 0..<data.count, using: &random))
        default:                                                                            // deep nesting
            let depth = Int.random(in: 100...5_000, using: &random)
            return Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
        return WireCodec.encode(JSONValue.object(fields))
    }

    private mutating func bytes(_ count: ClosedRange<Int>) -> Data {
        Data((0..<Int.random(in: count, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
    }
}
