import Client
import Foundation
import Schema
import Testing

/// A publisher whose database was replaced by an empty one numbers its events from 1 again, in a
/// new epoch. Its subscribers must follow the new history from its start instead of skipping every
/// event numbered below their old cursor, and the publisher says at start that it runs on a new
/// database beside older data.
@Suite("event epochs (integration)", .serialized)
struct EventEpochTests {
    @Test func subscribersFollowAPublisherWhoseDatabaseWasReplaced() throws {
        let stack = try TestStack().start(["registration", "badge"])
        let client = try stack.client()
        let before = try client.registerKnownToBadge(5)
        #expect(try client.badgeKnows(before))

        let registration = try #require(stack.services["registration"])
        #expect(registration.terminate() == 0)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: "\(stack.dataDirectory)/registration.sqlite\(suffix)") }
        // The deployment has run for a while (server.key is written once, at its first start).
        let earlier = Date().addingTimeInterval(-600)
        try FileManager.default.setAttributes([.modificationDate: earlier], ofItemAtPath: "\(stack.dataDirectory)/server.key")
        try stack.startService("registration")
        let log = try #require(stack.services["registration"]).output
        #expect(log.contains("started on a new, empty database"), "\(log)")
        #expect(log.contains("registration.sqlite"), "the warning names the file")

        // The new history: a registration (event 1 again) and a delete (event 2).
        let fresh = try client.register(deviceID: "after-the-loss")
        #expect(try eventually(15) { try client.badgeKnows([fresh]) }, "badge applied the new history's first event")
        let gone = try client.register(deviceID: "deleted-later")
        #expect(try eventually(15) { try client.badgeKnows([gone]) })
        #expect(try client.json("device.delete", ["app_key": "app1".json, "registration_id": gone.json]).code == 0)
        #expect(try eventually(15) { try !client.badgeKnows([gone]) }, "and its deletes")
        #expect(try stack.services["badge"]?.output.contains("publisher's history started over") == true)
    }
}
