import Client
import Foundation
import JSON
import SQLite
import Schema
import Testing
import ZeroMQ
@testable import Bus
@testable import Events
@testable import Runtime
@testable import Worker

/// A service written in the test: it forgets deleted devices it hears of on the bus and, once,
/// publishes an event from a timer. Its loop is the real `ServiceWorker` against a real gateway.
/// It answers no request (its worker announces the MDP service `probe`; `service` names the catalog's
/// commands it would take, none of which are sent to it).
final class ProbeHandler: RequestHandler {
    let service = Service.registration
    let storage: ServiceStorage
    private var tickAt: Date?

    init(path: String, tickAt: Date) throws {
        storage = try ServiceStorage(path: path, migrations: [Migration("probe-1", "CREATE TABLE deleted (registration_id TEXT PRIMARY KEY)")],
                                     publisher: "probe")
        self.tickAt = tickAt
    }

    var subscriptions: [Topic] { [.deviceDeleted] }

    func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable { Empty() }

    func apply(_ event: BusEvent, in db: Database) throws {
        let deleted = try event.decode(DeviceDeletedEvent.self)
        try db.run("INSERT OR IGNORE INTO deleted VALUES (?)", deleted.body.registrationID)
    }

    /// Read on a connection of the caller's own: the storage belongs to the worker's thread.
    func deleted() throws -> [String] {
        try Database(path: storage.store.path).rows("SELECT registration_id FROM deleted").compactMap { $0[0].string }
    }

    func nextTick() -> Date? { tickAt }

    func tick(now: Date, in db: Database) throws {
        tickAt = nil
        try storage.outbox.append(DeviceRegisteredEvent(appKey: "probe", registrationID: "tick", platform: "timer"), in: db)
    }
}

@Suite("worker events and timers (integration)")
struct WorkerEventsTests {
    @Test func aWorkerAppliesBusEventsAndRunsItsTimer() throws {
        let stack = try TestStack().start()
        let subscriber = try Socket.sub(stack.context, connect: stack.eventsOut, topics: ["device.registered"])

        let handler = try ProbeHandler(path: "\(stack.dataDirectory)/probe.sqlite", tickAt: Date().addingTimeInterval(1.5))
        let options = stack.workerOptions()
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
        func deletedSeen() throws -> [String] { try handler.deleted() }
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
            guard try poller.poll(timeout: 500).contains(subscriber), let message = try subscriber.receive() else { continue }
            let event = try JSONDecoder().decode(Event<DeviceRegisteredEvent>.self, from: message[1])
            if event.publisher == "probe" { fromTimer = event }
        }
        #expect(fromTimer?.body.registrationID == "tick", "the timer ran and its event was published")
    }
}

/// Records, in order, every `device.registered` event it is given; an event whose sequence number
/// `refusing` names it refuses after writing its row (a handler that fails half-way through).
/// It answers no request, as `ProbeHandler`.
final class RecorderHandler: RequestHandler {
    let service = Service.registration
    let storage: ServiceStorage
    private let refusing: (Int64) -> Bool
    struct Refused: Error {}

    init(path: String, refusing: @escaping (Int64) -> Bool = { _ in false }) throws {
        self.refusing = refusing
        storage = try ServiceStorage(path: path, migrations: [
            Migration("recorder-1", "CREATE TABLE applied (n INTEGER PRIMARY KEY, publisher TEXT NOT NULL, seq INTEGER NOT NULL)"),
        ], publisher: "recorder")
    }

    var subscriptions: [Topic] { [.deviceRegistered] }

    func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable { Empty() }

    func apply(_ event: BusEvent, in db: Database) throws {
        try db.run("INSERT INTO applied (publisher, seq) VALUES (?, ?)", event.publisher ?? "", event.sequence ?? -1)
        if refusing(event.sequence ?? -1) { throw Refused() }
    }

    /// Read on a connection of the caller's own: the storage belongs to the worker's thread. It
    /// waits for a lock as the stores do: a fresh connection that finds the WAL being started over
    /// by the worker's checkpoint gets SQLITE_BUSY at once without it (seen once in a full run).
    func applied() throws -> [Int] {
        let db = try Database(path: storage.store.path)
        db.setBusyWait(milliseconds: 5000)
        return try db.rows("SELECT seq FROM applied ORDER BY n").compactMap { $0[0].int }
    }
}

@Suite("reliable events (integration)", .serialized)
struct ReliableEventsTests {
    /// Runs a recorder worker on its own thread until the returned stop function is called.
    func startRecorder(_ stack: TestStack, path: String, retentionHours: Int = 72) throws -> (RecorderHandler, () -> Void) {
        let handler = try RecorderHandler(path: path)
        var options = stack.workerOptions()
        options.eventRetentionHours = retentionHours
        nonisolated(unsafe) let worker = ServiceWorker(service: "recorder", options: options, handler: handler,
                                                       context: stack.context, logger: Logger(label: "recorder", level: .critical))
        let finished = DispatchSemaphore(value: 0)
        Thread { try? worker.run(); finished.signal() }.start()
        try stack.waitForService("recorder")
        return (handler, { worker.stopper.request(); finished.wait() })
    }

    @Test func aSubscriberCutOffMidStreamEndsWithEveryEventInOrder() throws {
        let stack = try TestStack().start()
        let client = try stack.client()
        let path = "\(stack.dataDirectory)/recorder.sqlite"
        var (recorder, stop) = try startRecorder(stack, path: path)
        for _ in 0..<150 { _ = try client.register() }
        stop()                                   // cut off mid-stream: these are published while it is away
        for _ in 0..<150 { _ = try client.register() }
        (recorder, stop) = try startRecorder(stack, path: path)
        defer { stop() }
        for _ in 0..<100 { _ = try client.register() }

        let deadline = Date().addingTimeInterval(20)
        while try recorder.applied().count < 400 && Date() < deadline { usleep(50_000) }
        let applied = try recorder.applied()
        #expect(applied == Array(1...400), "every event once, in order (\(applied.count) applied)")
    }

    @Test func eventsSentBeforeASubscriberExistedReachItWithoutALaterEvent() throws {
        let stack = try TestStack().start()
        let client = try stack.client()
        for _ in 0..<30 { _ = try client.register() }   // published before the recorder subscribes, then silence
        let (recorder, stop) = try startRecorder(stack, path: "\(stack.dataDirectory)/late.sqlite")
        defer { stop() }
        let deadline = Date().addingTimeInterval(20)
        while try recorder.applied().count < 30 && Date() < deadline { usleep(50_000) }
        #expect(try recorder.applied() == Array(1...30), "the sweep found what no gap could show")
    }

    @Test func publishedEventsArePrunedAfterTheRetentionButNumberingGoesOn() throws {
        let (store, outbox) = try outboxWithEvents(5, "prune")
        #expect(try outbox.prune(before: Date().timeIntervalSince1970 + 1) == 4, "the newest stays")
        try store.write { db in try outbox.append(DeviceDeletedEvent(appKey: "a", registrationID: "r"), in: db) }
        #expect(try remainingSequences(outbox) == [5, 6])
    }

    /// 12,001 events two hours old and a one-hour retention: the worker prunes them in rounds of
    /// `Outbox.pruneLimit` a few milliseconds apart (not one a minute), keeping the newest.
    @Test func aWorkerPrunesABacklogInBoundedRoundsUntilItIsGone() throws {
        let stack = try TestStack().start()
        let path = "\(stack.dataDirectory)/backlog.sqlite"
        do {
            let filler = try RecorderHandler(path: path)
            try filler.storage.store.write { db in
                for _ in 0...(2 * Outbox.pruneLimit + 2000) {
                    try filler.storage.outbox.append(DeviceDeletedEvent(appKey: "a", registrationID: "r"), in: db)
                }
                try db.run("UPDATE outbox SET created_at = created_at - 7200")
            }
        }
        let (recorder, stop) = try startRecorder(stack, path: path, retentionHours: 1)
        defer { stop() }
        // A connection of the test's own: the recorder's store belongs to the worker's thread.
        let reader = try Database(path: path)
        func left() throws -> Int { try reader.value("SELECT COUNT(*) FROM outbox").int ?? -1 }
        _ = try eventually(10, every: 20_000) { try left() <= 1 }
        #expect(try left() == 1, "every expired event but the newest is gone within seconds, not minutes")
    }

    @Test func pruningTakesTheOldestEventsABoundedBatchAtATime() throws {
        let (_, outbox) = try outboxWithEvents(10, "prune-batches")
        let later = Date().timeIntervalSince1970 + 1
        #expect(try outbox.prune(before: later, limit: 4) == 4)
        #expect(try remainingSequences(outbox) == Array(5...10), "the oldest went first")
        #expect(try outbox.prune(before: later, limit: 4) == 4)
        #expect(try outbox.prune(before: later, limit: 4) == 1, "the newest stays")
        #expect(try remainingSequences(outbox) == [10])
        #expect(try outbox.prune(before: Date().timeIntervalSince1970 - 3600, limit: 4) == 0, "nothing is that old")
    }

    /// Each event is pruned by its own stamp: one stamped a year ahead (a clock that ran ahead, then
    /// was put right) stays, and the expired events after it still go.
    @Test func anEventStampedInTheFutureDoesNotHoldBackThePruning() throws {
        let (store, outbox) = try outboxWithEvents(6, "prune-future")
        try store.write { db in
            try db.run("UPDATE outbox SET created_at = created_at - 7200")
            try db.run("UPDATE outbox SET created_at = ? WHERE seq = 2", Date().timeIntervalSince1970 + 365 * 86_400)
        }
        #expect(try outbox.prune(before: Date().timeIntervalSince1970 - 3600) == 4)
        #expect(try remainingSequences(outbox) == [2, 6])
    }

    /// Pruning has the index by age to find the oldest events, in a database made before `events-4`
    /// dropped it and in one made after (`events-5` makes it again).
    @Test func theOutboxKeepsItsIndexByAge() throws {
        let (store, _) = try outboxWithEvents(0, "outbox-index")
        let indexes = try store.read { db in
            try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'").compactMap { $0[0].string }
        }
        #expect(indexes == ["outbox_by_time"])
    }

    /// An outbox in a database of its own, migrated as every service's is, holding `count` events.
    private func outboxWithEvents(_ count: Int, _ name: String) throws -> (Store, Outbox) {
        let store = try Store(path: TestPaths.temporaryDirectory(name) + "/p.sqlite",
                              migrations: [Outbox.migration, Outbox.catchUpMigration] + WorkerTables.migrations)
        let outbox = try Outbox(store: store, publisher: "p")
        try store.write { db in
            for _ in 0..<count { try outbox.append(DeviceDeletedEvent(appKey: "a", registrationID: "r"), in: db) }
        }
        return (store, outbox)
    }

    private func remainingSequences(_ outbox: Outbox) throws -> [Int64] {
        try outbox.events(after: 0, limit: 100).events.map {
            try JSONDecoder().decode(Event<DeviceDeletedEvent>.self, from: $0.event).sequence
        }
    }
}
