// The pieces of a tagging request's path inside the worker, timed one by one in process, so a
// profile of the whole stack can be read against them: JSON in and out, the outbox, single SQLite
// statements, savepoints, and whole tags.add / tags.get calls at 1000 per transaction.
import Bus
import Credentials
import Events
import Foundation
import Runtime
import SQLite
import Schema
import TaggingKit
import Worker

func time(_ label: String, _ n: Int, _ body: () throws -> Void) rethrows {
    let start = Clock.microseconds()
    try body()
    let us = Double(Clock.microseconds() - start) / Double(n)
    print(String(format: "%-40@ %8.2f µs/op", label as NSString, us))
}
let n = 100_000
let directory = NSTemporaryDirectory() + "bench-hotpath"
try? FileManager.default.removeItem(atPath: directory)
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
let payload = WireCodec.encode(TagsChange(appKey: "bench", registrationID: "0123456789abcdef0123", tags: ["vip", "gold", "t17"]))
try time("decode TagsChange", n) { for _ in 0..<n { _ = try WireCodec.decode(TagsChange.self, from: payload) } }
try time("decode Envelope<TagsChange> via Request", n) { for _ in 0..<n { _ = try Request(command: "tags.add", payload: payload).decode(TagsChange.self) } }
time("encode reply TagsReply", n) { for _ in 0..<n { _ = WireCodec.successReply(TagsReply(tags: ["vip", "gold", "t17"]), seq: 5) } }
let event = Event(publisher: "tagging", sequence: 1, time: "2026-11-29T10:00:00.000Z",
                  body: TagsChangedEvent(appKey: "bench", registrationID: "0123456789abcdef0123", added: ["vip"], removed: []))
time("encode event", n) { for _ in 0..<n { _ = WireCodec.encode(event) } }
let store = try Store(path: directory + "/o.sqlite", migrations: [Outbox.migration, Outbox.catchUpMigration,
                                                                  Migration("t", "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)")]
                                                                 + WorkerTables.migrations)
let outbox = try Outbox(store: store, publisher: "x")
try time("outbox.append (1000/txn)", n) {
    for _ in 0..<(n / 1000) { try store.write { db in for _ in 0..<1000 { try outbox.append(event.body, in: db) } } }
}
try time("db.run INSERT (1000/txn)", n) {
    for i in 0..<(n / 1000) { try store.write { db in for j in 0..<1000 { try db.run("INSERT INTO t (a, b) VALUES (?, ?)", i * 1000 + j, "x") } } }
}
try time("db.value SELECT (1000/txn)", n) {
    for i in 0..<(n / 1000) { try store.read { db in for j in 0..<1000 { _ = try db.value("SELECT b FROM t WHERE a = ?", i * 1000 + j) } } }
}
try time("savepoint empty (1000/txn)", n) {
    for _ in 0..<(n / 1000) { try store.write { db in for _ in 0..<1000 { try store.write { _ in } } } }
}
// What authentication adds: per signed request the ledger (and, for a device, the tombstone
// lookup); per event one seal by its publisher and one check by the gateway and by each subscriber.
let ledger = ProofLedger(store: store)
var fingerprint = UInt64(0x9e37_79b9_7f4a_7c15)
try time("proof ledger record (1000/txn, 20k a second)", n) {
    for batch in 0..<(n / 1000) {
        try store.write { db in
            for _ in 0..<1000 {
                fingerprint = fingerprint &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                _ = try ledger.record(fingerprint, ts: 1_800_000_000 + Int64(batch / 20), now: 1_800_000_000 + Int64(batch / 20), in: db)
            }
        }
    }
}
try time("tombstone lookup (1000/txn)", n) {
    for i in 0..<(n / 1000) { try store.read { db in for j in 0..<1000 { _ = try Tombstones.contains(db, registrationID: "r\(i * 1000 + j)") } } }
}
let secrets = Secrets(admin: String(repeating: "ad", count: 32), serverKey: String(repeating: "5e", count: 32))
let eventData = WireCodec.encode(event)
let key = secrets.serviceSecret("tagging")
time("event seal (publisher)", n) {
    for _ in 0..<n { _ = EventSeal.proof(topic: "tags.changed", event: eventData, publisher: "tagging", key: key) }
}
let seal = EventSeal.proof(topic: "tags.changed", event: eventData, publisher: "tagging", key: key)
var verifier = EventVerifier(secrets: secrets)
time("event check (gateway: proof only)", n) {
    for _ in 0..<n { _ = verifier.publisher(topic: "tags.changed", event: eventData, proof: seal) }
}
time("event check (subscriber: proof + header)", n) {
    for _ in 0..<n { _ = BusEvent.verified(topic: "tags.changed", data: eventData, proof: seal, by: &verifier) }
}
time("event header only (before signing)", n) { for _ in 0..<n { _ = BusEvent(topic: "tags.changed", data: eventData) } }
let handler = try TaggingHandler(path: directory + "/t.sqlite", clock: { 0 })
let handle = { (request: Request) in ServiceWorker.reply(to: request, handler: handler) }
let devices = (0..<20_000).map { String(format: "%020d", $0) }
let vocabulary = (0..<200).map { "t\($0)" }
var k = 0
try time("handler tags.add 3 tags (1000/txn)", n) {
    for _ in 0..<(n / 1000) {
        try handler.storage.store.write { _ in
            for _ in 0..<1000 {
                k += 1
                let p = WireCodec.encode(TagsChange(appKey: "bench", registrationID: devices[k % devices.count],
                                                    tags: [vocabulary[k % 200], vocabulary[(k * 7) % 200], vocabulary[(k * 13) % 200]]))
                _ = handle(Request(command: "tags.add", payload: p))
            }
        }
    }
}
try time("handler tags.get (1000/txn)", n) {
    for _ in 0..<(n / 1000) {
        try handler.storage.store.write { _ in
            for _ in 0..<1000 {
                k += 1
                let p = WireCodec.encode(DeviceRef(appKey: "bench", registrationID: devices[k % devices.count]))
                _ = handle(Request(command: "tags.get", payload: p))
            }
        }
    }
}
