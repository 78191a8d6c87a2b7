import Foundation
@testable import JSON
import Schema
import SQLite
import Testing
import Worker
@testable import TaggingKit

/// The tagging service through the worker's adapter (`ServiceWorker.reply`): two handlers
/// in lockstep, one sent each hostile payload as is (the fast reader reads what it can), the other
/// the same payload with one unknown member whose key holds an escape (`"\u0078\u0078":0`), which
/// no type reads but which sends every request down the old path (Codable decode). Replies must be
/// the same bytes, and the events each publishes the same, but for their epoch and time.
@Suite("Tagging requests read in place, against the Codable path")
struct FieldReadingThroughTaggingTests {
    final class Clock: @unchecked Sendable {
        var now = 1_700_000_000.0
    }

    static let commands = ["tags.add", "tags.set", "tags.delete", "tags.clean", "tags.get", "tags.valid",
                           "alias.set", "alias.delete", "alias.get"]

    static let appKeys = [#""app1""#, #""app1""#, #""app2""#, "null", "5", #""""#, #""APP1""#, #""app1 ""#]
    static let ids = [#""d1""#, #""d2""#, #""d3""#, #""d4""#, "null", "7", #""""#, #""D1""#, "[\"d1\"]"]
    static let tagValues = [#""vip""#, #""a_b""#, #""x1""#, #""x-1""#, #""bad tag!""#, #""""#, "\"\(String(repeating: "t", count: 41))\"", "null", "3",
                            #""DUP""#]
    static let seqs = ["1", "-0", "-1", "0", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1.0", "1e0",
                       #""1""#, "null", "true", "[]"]

    static func payload<R: RandomNumberGenerator>(_ random: inout R) -> String {
        // The first few of each list (good values) most of the time.
        func pick(_ list: [String]) -> String {
            Int.random(in: 0..<4, using: &random) == 0 ? list.randomElement(using: &random)! : list[Int.random(in: 0..<min(3, list.count), using: &random)]
        }
        func ws() -> String { Int.random(in: 0..<5, using: &random) == 0 ? [" ", "\n", "\t", "\r\n "].randomElement(using: &random)! : "" }
        var members: [(String, String)] = []
        if Int.random(in: 0..<8, using: &random) != 0 { members.append(("app_key", pick(appKeys))) }
        if Int.random(in: 0..<8, using: &random) != 0 { members.append(("registration_id", pick(ids))) }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: members.append(("tags", "null"))
        case 1: members.append(("tags", pick(tagValues)))
        default:
            let count = Int.random(in: 0...4, using: &random)
            members.append(("tags", "[" + (0..<count).map { _ in ws() + pick(tagValues) + ws() }.joined(separator: ",") + "]"))
        }
        if Bool.random(using: &random) { members.append(("tag", pick(tagValues))) }
        if Bool.random(using: &random) { members.append(("alias", pick(tagValues))) }
        if Bool.random(using: &random) { members.append(("seq", pick(seqs))) }
        // A key given twice, a key in another case, a nested object holding the real keys.
        switch Int.random(in: 0..<6, using: &random) {
        case 0: members.append(("app_key", pick(appKeys)))
        case 1: members.append(("registration_id", pick(ids)))
        case 2: members.append(("seq", pick(seqs)))
        case 3: members.append(("Tags", #"["zzz"]"#))
        case 4: members.append(("x", #"{"app_key":"app2","seq":5,"tags":["n"]}"#))
        default: break
        }
        members.shuffle(using: &random)
        return ws() + "{" + members.map { ws() + "\"\($0.0)\"" + ws() + ":" + ws() + $0.1 + ws() }.joined(separator: ",") + "}" + ws()
    }

    /// `text` with a member the fast reader declines (a backslash) and every type ignores.
    static func forcedSlow(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "{") else { return nil }
        let rest = text[text.index(after: open)...]
        let member = #""\u0078\u0078":0"#
        if rest.drop(while: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).first == "}" {
            return String(text[..<open]) + "{" + member + rest
        }
        return String(text[..<open]) + "{" + member + "," + rest
    }

    static func events(_ handler: TaggingHandler) throws -> [String] {
        try handler.storage.store.read { db in
            try db.rows("SELECT topic, event FROM outbox ORDER BY seq").map { row -> String in
                guard case .blob(let data) = row[1] else { return "not a blob" }
                // Each event is the bytes JSONTreeEncoder writes for it.
                let topic = row[0].string ?? ""
                var reencoded = Data()
                if topic == "tags.changed", let event = try? JSONTreeDecoder().decode(Event<TagsChangedEvent>.self, from: data) {
                    reencoded = try JSONTreeEncoder().encode(event)
                } else if topic == "alias.changed", let event = try? JSONTreeDecoder().decode(Event<AliasChangedEvent>.self, from: data) {
                    reencoded = try JSONTreeEncoder().encode(event)
                }
                let sameBytes = reencoded == data
                guard case .object(var object)? = try? JSONTreeDecoder().decode(JSONValue.self, from: data) else { return "not JSON" }
                object["epoch"] = nil
                object["time"] = nil
                return "\(topic) \(sameBytes ? "" : "NOT AS ENCODED ")\((try? JSONTreeEncoder().text(.object(object))) ?? "?")"
            }
        }
    }

    @Test func hostilePayloadsGetTheRepliesTheOldPathGives() throws {
        let directory = TestPaths.temporaryDirectory("field-reading")
        let fastClock = Clock(), slowClock = Clock()
        let fast = try TaggingHandler(path: directory + "/fast.sqlite", aliasMaxDevices: 2, clock: { fastClock.now })
        let slow = try TaggingHandler(path: directory + "/slow.sqlite", aliasMaxDevices: 2, clock: { slowClock.now })
        var random = TestRandom()
        var compared = 0, differences = 0, fastReads = 0
        var codes: [Int: Int] = [:]
        for _ in 0..<2000 {
            let text = Self.payload(&random)
            let command = Self.commands.randomElement(using: &random)!
            guard let slowText = Self.forcedSlow(text),
                  (try? JSONParser.parse(Data(text.utf8))) != nil, (try? JSONParser.parse(Data(slowText.utf8))) != nil else {
                Issue.record("bad test payload \(text)")
                continue
            }
            fastClock.now += 1.5
            slowClock.now += 1.5
            let a = ServiceWorker.reply(to: Request(command: command, payload: Data(text.utf8)), handler: fast)
            let b = ServiceWorker.reply(to: Request(command: command, payload: Data(slowText.utf8)), handler: slow)
            compared += 1
            if WireCodec.read(TagsChange.self, from: Data(text.utf8)) != nil { fastReads += 1 }
            if let code = (try? JSONTreeDecoder().decode(JSONValue.self, from: a))?["code"]?.number { codes[Int(code), default: 0] += 1 }
            if a != b {
                differences += 1
                Issue.record("\(command) \(text): fast \(String(decoding: a, as: UTF8.self)) vs old path \(String(decoding: b, as: UTF8.self))")
            }
        }
        let (fastEvents, slowEvents) = (try Self.events(fast), try Self.events(slow))
        #expect(fastEvents == slowEvents)
        #expect(!fastEvents.contains { $0.contains("NOT AS ENCODED") }, "\(fastEvents.filter { $0.contains("NOT AS ENCODED") }.prefix(3))")
        FileHandle.standardError.write(Data("tagging wire: \(compared) requests, \(differences) differences, \(fastEvents.count) events, \(fastReads) read fast, codes \(codes.sorted { $0.key < $1.key })\n".utf8))
        #expect(fastEvents.count > 20, "the requests changed something")
        #expect(differences == 0)
    }
}
