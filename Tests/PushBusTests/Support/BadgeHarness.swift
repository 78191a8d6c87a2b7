import Bus
import Foundation
import JSON
import Runtime
import Schema
import WireTime
@testable import BadgeKit

/// A badge handler on a temporary database with a hand-moved clock, fed bus events the way the
/// worker loop feeds them, and short ways to call its commands.
final class BadgeHarness {
    let clock = ManualClock()
    let directory = TestPaths.temporaryDirectory("badge")
    private(set) var handler: BadgeHandler
    private var sequence: Int64 = 0

    init(retention: Double = 86_400) throws {
        let clock = self.clock
        handler = try BadgeHandler(path: "\(directory)/badge.sqlite", retention: retention, clock: { clock.now })
    }

    /// Closes the database and opens it again, as a restarted service would.
    func reopen() throws {
        let clock = self.clock, retention = handler.retention
        handler = try BadgeHandler(path: "\(directory)/badge.sqlite", retention: retention, clock: { clock.now })
    }

    /// Delivers `device.registered` for each ID.
    func registered(_ ids: [String], app: String = "app1") throws {
        for id in ids { try deliver(DeviceRegisteredEvent(appKey: app, registrationID: id, platform: "ios")) }
    }

    func deleted(_ id: String, app: String = "app1") throws {
        try deliver(DeviceDeletedEvent(appKey: app, registrationID: id))
    }

    func deliver<Body: EventBody>(_ body: Body) throws {
        sequence += 1
        let event = Event(publisher: "registration", sequence: sequence, time: RFC3339.string(from: Date()), body: body)
        try handler.storage.store.write { db in try handler.apply(BusEvent(event), in: db) }
    }

    func call(_ command: String, _ payload: [String: JSONValue]) -> JSONValue { reply(handler, command, payload) }

    func set(_ id: String, _ value: JSONValue, app: String = "app1") -> JSONValue {
        call("badge.set", ["app_key": app.json, "registration_id": id.json, "value": value])
    }

    func get(_ id: String, app: String = "app1") -> JSONValue {
        call("badge.get", ["app_key": app.json, "registration_id": id.json])
    }

    /// The stored badge of `id`, or nil when `badge.get` refuses.
    func value(_ id: String, app: String = "app1") -> Int? { get(id, app: app)["value"]?.number.map { Int($0) } }

    func apply(_ ids: [String], _ badge: String, msgID: String, app: String = "app1") -> JSONValue {
        call("badge.apply", ["app_key": app.json, "registration_ids": .array(ids.map(\.json)), "badge": badge.json,
                             "msg_id": msgID.json])
    }

    /// The `badge.changed` events committed since the last call: registration ID → value, in order.
    func changes() throws -> [(String, Int)] {
        try handler.storage.outbox.takeCommitted().map { taken in
            let event = try JSONDecoder().decode(Event<BadgeChangedEvent>.self, from: taken.event)
            return (event.body.registrationID, event.body.value)
        }
    }

    /// Rows of a table, to see what the service keeps.
    func count(_ table: String) throws -> Int {
        try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM \(table)").int ?? -1 }
    }
}

extension JSONValue {
    /// `values[id]` of a `badge.apply` reply as an integer.
    func badge(_ id: String) -> Int? { self["values"]?[id]?.number.map { Int($0) } }

    /// The strings of an array field, e.g. `unknown`.
    func strings(_ key: String) -> [String]? {
        guard case .array(let items)? = self[key] else { return nil }
        return items.compactMap(\.string)
    }
}
