import Credentials
import Foundation
import JSON
import Majordomo
import SQLite
import Schema
import Testing
import ZeroMQ
@testable import Events
@testable import RegistrationKit
@testable import Runtime
@testable import Worker

@Suite("group commit")
struct GroupCommitTests {
    let directory = TestPaths.temporaryDirectory("group")

    /// A registration handler with app `a`, and a worker on it (never run: its batches are called directly).
    func registration(_ name: String) throws -> (RegistrationHandler, ServiceWorker) {
        let handler = try RegistrationHandler(path: "\(directory)/\(name).sqlite", secrets: .forTests)
        _ = reply(handler, "app.create", ["name": "a".json, "app_key": "a".json])
        let worker = ServiceWorker(service: "registration", options: WorkerOptions(), handler: handler,
                                   context: try Context(), logger: Logger(label: "test", level: .critical))
        return (handler, worker)
    }

    func body(_ command: String, _ payload: [String: JSONValue]) -> [Data] {
        [Data(command.utf8), WireCodec.encode(JSONValue.object(payload))]
    }

    @Test func aBatchCommitsTogetherAndAFailingRequestStaysAlone() throws {
        let (handler, worker) = try registration("r")
        let register = ["app_key": "a".json, "platform": "ios".json]
        let replies = worker.answer([
            body("device.register", register.merging(["device_id": "one".json, "seq": .number(1)]) { $1 }),
            body("device.register", ["app_key": "a".json, "seq": .number(2)]),
            [Data("only one frame".utf8)],
            body("device.register", register.merging(["device_id": "two".json, "seq": .number(3)]) { $1 }),
        ]).map { try? JSONDecoder().decode(JSONValue.self, from: $0) }
        #expect(replies.map { $0?.code } == [0, 6001, 6017, 0])
        #expect(replies.map { $0?["seq"] } == [.number(1), .number(2), nil, .number(3)])
        let devices = try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM devices").int }
        #expect(devices == 2)
        #expect(handler.storage.outbox.takeCommitted().count == 2)
    }
}

extension GroupCommitTests {
    /// A batch slower than its deadline commits what it took and leaves the rest for the next part,
    /// so the worker can answer (and be heard by the gateway) before the whole batch is done.
    @Test func aBatchPastItsDeadlineCommitsThePartItTook() throws {
        let (handler, worker) = try registration("deadline")
        let bodies = (1...3).map { body("device.register", ["app_key": "a".json, "platform": "ios".json, "seq": .number(Double($0))]) }
        let first = worker.answer(bodies, until: Clock.milliseconds() - 1)
        #expect(first.count == 1, "past its deadline, a part still takes one request")
        #expect(handler.storage.outbox.takeCommitted().count == 1, "and commits it")
        #expect(worker.answer(Array(bodies.dropFirst())).count == 2)
        let devices = try handler.storage.store.read { db in try db.value("SELECT COUNT(*) FROM devices").int }
        #expect(devices == 3)
    }
}

extension GroupCommitTests {
    @Test func aStorageFailureIsAnswered6024AndNothingIsKept() throws {
        let (handler, worker) = try registration("broken")
        try handler.storage.store.read { db in try db.execute("PRAGMA query_only = 1") }
        let replies = worker.answer([body("device.register", ["app_key": "a".json, "platform": "ios".json, "seq": .number(4)])])
            .map { try? JSONDecoder().decode(JSONValue.self, from: $0) }
        #expect(replies.first??.code == 6024)
        #expect(replies.first??["seq"] == .number(4))
        #expect(handler.storage.outbox.takeCommitted().isEmpty)
    }
}

@Suite("outbox")
struct OutboxTests {
    @Test func sequenceIsGaplessAndFollowsTransactions() throws {
        let store = try Store(path: TestPaths.temporaryDirectory("outbox") + "/o.sqlite", migrations: [Outbox.migration, Outbox.catchUpMigration] + WorkerTables.migrations)
        let outbox = try Outbox(store: store, publisher: "test.0")
        let event = DeviceDeletedEvent(appKey: "a", registrationID: "r")
        try store.write { db in try outbox.append(event, in: db) }
        _ = try? store.write { db in
            try outbox.append(event, in: db)
            throw CommandError.invalid("rolled back")
        }
        try store.write { db in try outbox.append(event, in: db) }
        let taken = outbox.takeCommitted()
        let sequences = try taken.map { try JSONDecoder().decode(Event<DeviceDeletedEvent>.self, from: $0.event).sequence }
        #expect(sequences == [1, 2])
        #expect(outbox.takeCommitted().isEmpty)
        #expect(try Outbox(store: store, publisher: "test.0").events(after: 1, limit: 10).events.count == 1)
    }
}

/// A handler that writes a row for each request and then, when the request asks, refuses it: the
/// case a batch without savepoints must send round again.
private final class WritesThenRefuses: RequestHandler {
    let service = Service.registration
    let storage: ServiceStorage

    init(path: String) throws {
        storage = try ServiceStorage(path: path, migrations: [Migration("rows-1", "CREATE TABLE rows (name TEXT PRIMARY KEY)")],
                                     publisher: "registration.test")
    }

    func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        let payload = try JSONDecoder().decode([String: String].self, from: request.payload)
        try db.run("INSERT INTO rows (name) VALUES (?)", payload["name"] ?? "")
        if payload["refuse"] != nil { throw CommandError.invalid("refused after writing") }
        return ["ok": true]
    }
}

extension GroupCommitTests {
    /// The batch's requests open no savepoint until one is refused after it has written: then the
    /// batch runs again with savepoints, and the others' rows are kept, the refused one's are not.
    @Test func aRequestRefusedAfterItWroteStaysAloneInItsBatch() throws {
        let handler = try WritesThenRefuses(path: "\(directory)/refuses.sqlite")
        let worker = ServiceWorker(service: "registration", options: WorkerOptions(), handler: handler,
                                   context: try Context(), logger: Logger(label: "test", level: .critical))
        let replies = worker.answer([
            [Data("device.register".utf8), Data(#"{"name":"one"}"#.utf8)],
            [Data("device.register".utf8), Data(#"{"name":"two","refuse":"yes"}"#.utf8)],
            [Data("device.register".utf8), Data(#"{"name":"three"}"#.utf8)],
        ]).map { try? JSONDecoder().decode(JSONValue.self, from: $0) }
        #expect(replies.map { $0?.code } == [0, 6017, 0], "6017: the refusal, invalid")
        let rows = try handler.storage.store.read { db in try db.rows("SELECT name FROM rows ORDER BY name").compactMap { $0[0].string } }
        #expect(rows == ["one", "three"])
    }
}
