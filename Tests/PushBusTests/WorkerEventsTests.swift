import Client
import Foundation
import Schema
import SQLite
import Testing
import ZeroMQ
@testable import Runtime

/// A service written in the test: it forgets deleted devices it hears of on the bus and, once,
/// publishes an event from a timer. Its loop is the real `ServiceWorker` against a real gateway.
final class ProbeHandler: RequestHandler {
    let store: Store
    let outbox: Outbox
    private var tickAt: Date?

    init(path: String, tickAt: Date) throws {
        store = try Store(path: path, migrations: [
            Outbox.migration, Migration("probe-1", "CREATE TABLE deleted (registration_id TEXT PRIMARY KEY)"),
        ])
        outbox = try Outbox(store: store, publisher: "probe")
        self.tickAt = tickAt
    }

    var subscriptions: [Topic] { [.deviceDeleted] }

    func handle(_ request: Request) throws -> any Encodable {
        let ids = try store.read { db in try db.rows("SELECT registration_id FROM deleted").compactMap { $0[0].string } }
        return ["deleted": ids]
    }

    func apply(_ event: BusEvent) throws {
        let deleted = try event.decode(DeviceDeletedEvent.self)
        try store.write { db in try db.run("INSERT OR IGNORE INTO deleted VALUES (?)", deleted.body.registrationID) }
    }

    func nextTick() -> Date? { tickAt }

    func tick(now: Date) throws {
        tickAt = nil
        try store.write { db in
            try outbox.append(DeviceRegisteredEvent(appKey: "probe", registrationID: "tick", platform: "timer"), in: db)
        }
    }
}

@Suite("worker events and timers (integration)")
struct WorkerEventsTests {
    @Test func aWorkerAppliesBusEventsAndRunsItsTimer() throws {
        let stack = try TestStack().start()
        let subscriber = try Socket(stack.context, .sub)
        try subscriber.subscribe("device.registered")
        try subscriber.connect(stack.eventsOut)

        let handler = try ProbeHandler(path: "\(stack.dataDirectory)/probe.sqlite", tickAt: Date().addingTimeInterval(1.5))
        let options = WorkerOptions(broker: stack.endpoint, events: stack.eventsIn, eventsOut: stack.eventsOut,
                                    heartbeatMilliseconds: 200, credit: 8)
        nonisolated(unsafe) let worker = ServiceWorker(service: "probe", options: options, handler: handler,
                                                       context: stack.context, logger: Logger(label: "probe", level: .error))
        let finished = DispatchSemaphore(value: 0)
        Thread { try? worker.run(); finished.signal() }.start()
        defer {
            worker.stopper.request()
            finished.wait()
        }
        try stack.waitForService("probe")

        let client = try stack.client()
        func deletedSeen() throws -> [String] {
            let reply = try client.request("probe", [Data("list".utf8), Data("{}".utf8)])
            return try JSONDecoder().decode(JSONValue.self, from: reply[0])["deleted"].map {
                if case .array(let items) = $0 { return items.compactMap(\.string) } else { return [] }
            } ?? []
        }
        // The SUB socket's subscription reaches the bus asynchronously: delete devices until one is seen.
        var deleted: [String] = []
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while seen.isEmpty && Date() < deadline {
            let id = try client.register()
            #expect(try client.json("device.delete", ["app_key": "app1".json, "registration_id": id.json]).code == 0)
            deleted.append(id)
            usleep(100_000)
            seen = try deletedSeen()
        }
        #expect(!seen.isEmpty && seen.allSatisfy(deleted.contains), "deleted devices reach the follower")
        let last = try client.register()
        #expect(try client.json("device.delete", ["app_key": "app1".json, "registration_id": last.json]).code == 0)
        let settle = Date().addingTimeInterval(5)
        while try !deletedSeen().contains(last) && Date() < settle { usleep(20_000) }
        #expect(try deletedSeen().contains(last), "once subscribed, every deletion arrives")

        var poller = Poller([subscriber])
        var fromTimer: Event<DeviceRegisteredEvent>?
        let timerDeadline = Date().addingTimeInterval(10)
        while fromTimer == nil && Date() < timerDeadline {
            guard try poller.poll(timeout: 500)[0], let message = try subscriber.receive() else { continue }
            let event = try JSONDecoder().decode(Event<DeviceRegisteredEvent>.self, from: message[1])
            if event.publisher == "probe" { fromTimer = event }
        }
        #expect(fromTimer?.body.registrationID == "tick", "the timer ran and its event was published")
    }
}

@Suite("sequence tracker")
struct SequenceTrackerTests {
    @Test func countsWhatWasSkipped() {
        var tracker = SequenceTracker()
        #expect(tracker.record(publisher: "a", sequence: 5) == 0, "the first event seen sets the start")
        #expect(tracker.record(publisher: "a", sequence: 6) == 0)
        #expect(tracker.record(publisher: "a", sequence: 9) == 2)
        #expect(tracker.record(publisher: "b", sequence: 1) == 0)
        #expect(tracker.record(publisher: "a", sequence: 7) == 0, "a late duplicate is not a gap")
        #expect(tracker.record(publisher: "a", sequence: 10) == 0)
    }
}
