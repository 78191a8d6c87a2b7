import Foundation
import PushBusSDK
import Testing

/// The device SDK's state file with no server at all: one client per state directory, a file never
/// readable by others even while it is written, a damaged file moved aside rather than silently
/// replaced, an unreadable command of the last launch dropped.
@Suite("device SDK state (offline)", .serialized)
struct SDKStateTests {
    let directory = URL(fileURLWithPath: TestPaths.temporaryDirectory("sdk-state"))
    var stateFile: URL { directory.appendingPathComponent("pushbus-device.json") }

    func client() throws -> PushBusClient {
        // Nothing listens on port 1: every command waits, queued and journaled.
        try PushBusClient(configuration: PushBusConfiguration(appKey: "offline", server: URL(string: "http://127.0.0.1:1")!,
                                                              stateDirectory: directory))
    }

    func state() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: stateFile)) as? [String: Any])
    }

    @Test("a second client on the same state directory is refused while the first holds it, and taken once it closed")
    func oneClientPerStateDirectory() throws {
        let first = try client()
        #expect(throws: (any Error).self) { _ = try client() }
        first.close()
        let second = try client()
        second.close()
    }

    @Test("no file in the state directory is ever readable by others, not even the one being written")
    func theStateIsNeverReadableByOthers() throws {
        let client = try client()
        defer { client.close() }
        let done = Locked(false)
        let seen = Locked<[String]>([])
        let watcher = Thread {
            while !done.get() {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
                    var info = stat()
                    if stat(directory.path + "/" + name, &info) == 0, info.st_mode & 0o077 != 0 {
                        seen.update { $0.append("\(name) \(String(info.st_mode & 0o777, radix: 8))") }
                    }
                }
            }
        }
        watcher.start()
        // Each recorded event writes the state (no EUID yet: nothing is sent).
        for index in 0..<300 { client.eventRecord("tick", properties: ["n": index]) }
        done.set(true)
        usleep(50_000)
        #expect(seen.get().isEmpty, "readable by others: \(seen.get().prefix(5))")
    }

    @Test("a damaged state file is moved aside and said, not silently written over; a damaged part costs only that part")
    func aDamagedStateIsKept() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{\"deviceID\": \"d1\", \"registrationID\": \"r1\", trunc".utf8).write(to: stateFile)
        var client = try self.client()
        client.close()
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".unreadable-") }
        #expect(aside.count == 1, "\(aside)")
        #expect(try String(contentsOf: directory.appendingPathComponent(aside[0]), encoding: .utf8).hasSuffix("trunc"))

        // The credentials read, the journal does not: the registration stays, the journal goes.
        try Data(#"{"deviceID": "d2", "registrationID": "r2", "deviceSecret": "s2", "journal": "not a list", "events": [7]}"#.utf8).write(to: stateFile)
        client = try self.client()
        #expect(client.registrationID == "r2")
        #expect(client.unansweredCommands == 0)
        client.close()
    }

    @Test("a command of the last launch that cannot be read again is dropped from the journal, not kept forever")
    func anUnreadableCommandIsDropped() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let junk = Data("not json".utf8).base64EncodedString()
        try Data(#"{"deviceID": "d3", "journal": [{"id": "j1", "command": "tags.add", "fields": "\#(junk)"}]}"#.utf8).write(to: stateFile)
        let client = try self.client()
        #expect(client.unansweredCommands == 0)
        client.close()
        #expect((try state()["journal"] as? [Any])?.isEmpty == true)
    }
}
