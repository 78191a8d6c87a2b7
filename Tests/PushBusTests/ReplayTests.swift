import Foundation
import JSON
import Schema
import Testing
@testable import ReplayKit

@Suite("replay tool")
struct ReplayTests {
    func generated(seed: UInt64, mix: TrafficMix = .default) throws -> [RecordedCall] {
        var calls: [RecordedCall] = []
        try TrafficGenerator(devices: 20, commands: 200, seed: seed, mix: mix).generate { calls.append($0) }
        return calls
    }

    @Test func theSameSeedGivesTheSameRecording() throws {
        #expect(try generated(seed: 5) == generated(seed: 5))
        #expect(try generated(seed: 5) != generated(seed: 6))
    }

    @Test func registrationsComeFirstThenTheMix() throws {
        let all = try generated(seed: 1)
        #expect(all.first?.command == "app.create", "the app comes first")
        let calls = Array(all.dropFirst())
        #expect(calls.prefix(20).allSatisfy { $0.command == "device.register" && $0.reply?["registration_id"] != nil })
        #expect(calls.dropFirst(20).prefix(20).allSatisfy { $0.command == "ma.start" }, "the default mix has analytics")
        let rest = Set(calls.dropFirst(40).map(\.command))
        #expect(rest.isSubset(of: Set(TrafficMix.Kind.allCases.map(\.rawValue))))
        #expect(rest.count >= 8, "the default mix spreads over many commands")
        let tagging = Array(try generated(seed: 1, mix: .tagging).dropFirst())
        #expect(Set(tagging.dropFirst(20).map(\.command)).allSatisfy { $0.hasPrefix("tags.") || $0.hasPrefix("alias.") })
        #expect(tagging.map(\.t) == tagging.map(\.t).sorted(), "times never go back")
    }

    @Test func aLineRoundTrips() throws {
        let call = RecordedCall(t: 1.5, command: "tags.add", payload: .object(["tags": .array(["a".json])]),
                                reply: .object(["code": .number(0)]))
        #expect(try RecordedCall(line: call.line) == call)
        #expect(String(decoding: call.line, as: UTF8.self) ==
                #"{"command":"tags.add","payload":{"tags":["a"]},"reply":{"code":0},"service":"device","t":1.5}"#)
    }

    @Test func aRecordingIsReadLineByLineInTimeOrder() throws {
        let path = NSTemporaryDirectory() + "recording-\(UUID().uuidString.prefix(8)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let late = RecordedCall(t: 9, command: "tags.get", payload: .object([:]))
        let early = RecordedCall(t: 2, command: "tags.add", payload: .object([:]))
        let same = RecordedCall(t: 9, command: "alias.get", payload: .object([:]))
        // Blank and whitespace-only lines are skipped wherever they are; the last line has no newline.
        var file = Data("\n".utf8) + late.line + Data("\n \t\r\n".utf8) + early.line + Data("\n\n".utf8) + same.line
        try file.write(to: URL(fileURLWithPath: path))
        #expect(try Recording.read(path) == [early, late, same], "by time, the file's order kept within one time")

        file += Data("\n\n{\"t\":1}\n".utf8)
        try file.write(to: URL(fileURLWithPath: path))
        #expect { try Recording.read(path) } throws: { ($0 as? Recording.BadLine)?.line == 8 }
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(try Recording.read(path).isEmpty)
    }

    @Test func preparedCallsMapProducedIDsAndWaitForThem() {
        let register = RecordedCall(t: 0, command: "device.register", payload: .object(["app_key": "a".json]),
                                    reply: .object(["code": .number(0), "registration_id": "00aa00aa00aa00aa00aa".json]))
        let use = RecordedCall(t: 1, command: "tags.add", payload: .object([
            "app_key": "a".json, "registration_id": "00aa00aa00aa00aa00aa".json, "tags": .array(["x".json]),
        ]))
        let other = RecordedCall(t: 2, command: "tags.get", payload: .object(["app_key": "a".json, "registration_id": "ffff".json]))
        let producers = ["00aa00aa00aa00aa00aa": 0]
        let prepared = [register, use, other].enumerated().map { PreparedCall($1, index: $0, producers: producers, connections: 4) }
        #expect(prepared[0].produces == ["registration_id": "00aa00aa00aa00aa00aa"])
        #expect(prepared[1].dependency == 0)
        #expect(prepared[2].dependency == nil, "an ID no call produces is sent as recorded")
        let mapped = prepared[1].payload(mapping: ["00aa00aa00aa00aa00aa": "1234567890abcdef1234"])
        let value = try? JSONDecoder().decode(JSONValue.self, from: mapped)
        #expect(value?["registration_id"] == "1234567890abcdef1234".json)
        #expect(value?["seq"] == .number(1), "seq is the call's index")
        #expect(prepared[1].connection == PreparedCall(use, index: 9, producers: producers, connections: 4).connection,
                "a device always uses the same connection")
    }

    /// IDs carried from an earlier run are written into the payload when the call is prepared, but
    /// an ID a call of this run gives out is this run's: its users wait for it and get the new one,
    /// whatever a stale file says.
    @Test func carriedIDsAreWrittenInUnlessThisRunGivesThemOut() {
        let register = RecordedCall(t: 0, command: "device.register", payload: .object(["app_key": "a".json]),
                                    reply: .object(["code": .number(0), "registration_id": "00aa".json]))
        let reuse = RecordedCall(t: 1, command: "tags.add", payload: .object([
            "app_key": "a".json, "registration_id": "00aa".json, "tags": .array(["x".json]),
        ]))
        let earlier = RecordedCall(t: 2, command: "alias.lookup", payload: .object(["app_key": "a".json, "registration_ids": .array(["ffff".json, .number(3)])]))
        let carried = ["00aa": "stale", "ffff": "given-before"]
        let prepared = [register, reuse, earlier].enumerated().map {
            PreparedCall($1, index: $0, producers: ["00aa": 0], carried: carried, connections: 4)
        }
        #expect(prepared[1].dependency == 0, "the call waits for this run's registration")
        let sent = try? JSONDecoder().decode(JSONValue.self, from: prepared[1].payload(mapping: ["00aa": "fresh"]))
        #expect(sent?["registration_id"] == "fresh".json)
        let written = try? JSONDecoder().decode(JSONValue.self, from: prepared[2].payload)
        #expect(written?["registration_ids"] == .array(["given-before".json, .number(3)]))
        #expect(prepared[2].ids.isEmpty, "nothing left to replace as the run goes")
    }

    @Test func repliesAreSniffedWithoutParsing() {
        let reply = Data(#"{"code":6005,"message":"tag \"seq\" bad","seq":42}"#.utf8)
        #expect(ReplySniffer.seq(reply) == 42)
        #expect(ReplySniffer.code(reply) == 6005)
        #expect(ReplySniffer.code(Data(#"{"code":-3,"seq":1}"#.utf8)) == -3)
        #expect(ReplySniffer.seq(Data(#"{"code":0}"#.utf8)) == nil)
    }

    @Test func comparisonIgnoresVolatileFieldsAndMapsIDs() {
        let recorded: JSONValue = .object(["code": .number(0), "registration_id": "old".json, "created_at": "then".json, "seq": .number(1)])
        let got: JSONValue = .object(["code": .number(0), "registration_id": "new".json, "created_at": "now".json, "seq": .number(9)])
        #expect(ReplyComparison.matches(recorded: recorded, got: got, mapping: ["old": "new"]))
        #expect(!ReplyComparison.matches(recorded: recorded, got: got, mapping: [:]))
    }

    @Test func latencyPercentiles() {
        let stats = LatencyStats(microseconds: (1...1000).map { UInt32($0 * 1000) })
        #expect(stats.p50 == 500)
        #expect(stats.p99 == 990)
        #expect(stats.max == 1000)
        #expect(LatencyStats(microseconds: []).p99 == 0)
    }
}
