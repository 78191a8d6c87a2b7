import Client
import Credentials
import Foundation
import JSON
import Schema
import Testing

/// What devices that never read cost a real `channel` process in resident memory (VmRSS): while
/// held, each at most its queue (`--max-queued-bytes`) and a little state; once they are gone, their
/// queues go back to the system and only what the allocator caches stays. Two channel processes, as
/// with `--shards channel=2` in production: the devices belong to shard 1 and connect to process 0,
/// which is measured. So their mailboxes and SQLite's page cache (up to 64 MiB a process, however
/// many connections) are shard 1's, and process 0 gets their messages as `live.push`, as a process
/// holding another shard's devices does.
@Suite("Device channel memory (integration)", .serialized)
struct ChannelMemoryTests {
    /// Slow readers held by one process.
    static let devices = 100
    /// The documented default, which the channel runs with here.
    static let maxQueuedBytes = 262_144
    /// A connection's own state beside its queue: its handshake block (`--handshake-memory`, 4 KiB),
    /// what the loop and the host keep for it, and the set of messages it was sent and has not
    /// acknowledged (some 30 bytes each, a few hundred here). About 9 KB idle, 20 KB here.
    static let state = 32 << 10
    /// What the process's allocator keeps, whatever the number of connections: tcmalloc holds small
    /// freed blocks (frames, requests) in per-thread and per-size caches that no call empties.
    /// A closed connection's state goes there too, so up to `state` of it may stay; its queue may not.
    static let caches = 8 << 20

    @Test func slowReadersCostAtMostTheirQueueAndGiveItBackOnceClosed() throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "5000", "--shards", "channel=2"])
            .start(["registration"])
        let ports = [Ports.free(), Ports.free()]
        let processes = try (0..<2).map { shard in
            try RunningProcess(TestPaths.executable("channel"),
                               ["--endpoint", stack.endpoint, "--events-in", stack.eventsIn, "--events-out", stack.eventsOut,
                                "--data-dir", stack.dataDirectory, "--heartbeat-ms", "200", "--parent-pid", String(getpid()),
                                "--shard-index", String(shard), "--shard-count", "2", "--listen", "127.0.0.1:\(ports[shard])",
                                "--ping-interval", "120", "--max-queued-bytes", String(Self.maxQueuedBytes)],
                               logDirectory: stack.logDirectory)
        }
        try stack.waitForService("channel")
        let holder = processes[0]
        let pid = holder.process.processIdentifier
        let ids = try Self.register(Self.devices, ofShard: 1, stack: stack)
        let start = try Self.resident(pid)

        // Each says hello and reads its welcome, then never reads again (a small receive buffer).
        var readers: [WebSocketTestClient] = []
        for id in ids {
            let reader = try WebSocketTestClient(port: ports[0], receiveBuffer: 4_096)
            try reader.handshake(path: "/v1/channel")
            let hello = #"{"app_key":"memapp","registration_id":"\#(id)","ts":\#(Int(Date().timeIntervalSince1970)),"nonce":"\#(RandomKey.hex(bytes: 8))"}"#
            let key = stack.secrets.deviceSecret(appKey: "memapp", registrationID: id)
            try reader.sendText(hello)
            try reader.sendText("v1 device:\(id) \(Proof.signature(key: key, command: "channel.hello", payload: Data(hello.utf8)))")
            readers.append(reader)
        }
        for reader in readers { #expect(try reader.readText() == #"{"type":"welcome"}"#) }
        let connected = try Self.resident(pid)

        // Messages of about a kilobyte for all of them, from four senders at once, until every
        // one is cut as a slow reader.
        let watch = ResidentWatch(pid: pid)
        let delivered = try Self.deliver(to: ids, stack: stack) { Self.slowReaders(in: holder.output) >= Self.devices }
        let peak = watch.stop()
        #expect(Self.slowReaders(in: holder.output) == Self.devices, "\(holder.output.suffix(3000))")

        readers = []
        let kept = Self.caches + Self.devices * Self.state
        var after = try Self.resident(pid)
        _ = try eventually(10, every: 200_000) {
            after = try Self.resident(pid)
            return after - start <= kept
        }
        let perConnection = (peak - start) / Self.devices
        let summary = "RSS \(start / 1024) KiB before, \(connected / 1024) KiB with the devices connected, \(peak / 1024) KiB at the peak "
            + "(\(perConnection) bytes a connection), \(after / 1024) KiB after they closed; \(delivered) messages"
        print(summary)
        #expect(peak - start <= Self.devices * (Self.maxQueuedBytes + Self.state) + Self.caches, "\(summary)")
        #expect(after - start <= kept, "memory not given back: \(summary)")
    }

    /// Registers devices until `count` of them belong to `shard` (of two); their registration IDs.
    static func register(_ count: Int, ofShard shard: Int, stack: TestStack) throws -> [String] {
        _ = try stack.client().json("app.create", ["name": .string("memapp"), "app_key": .string("memapp")])
        let unsigned = try MajordomoClient(endpoint: stack.endpoint, context: stack.context)
        var ids: [String] = []
        var n = 0
        while ids.count < count {
            n += 1
            let id = try unsigned.register(appKey: "memapp", deviceID: "slow-\(n)")
            if ShardHash.shard(of: id, count: 2) == shard { ids.append(id) }
        }
        return ids
    }

    /// `live.deliver`s of one custom message each to every one of `ids`, from four clients at once,
    /// until `enough` holds (or a minute passes); how many were delivered.
    static func deliver(to ids: [String], stack: TestStack, until enough: @escaping @Sendable () -> Bool) throws -> Int {
        let content: JSONValue = .object(["msg_content": .string(String(repeating: "m", count: 900)), "title": .string("T")])
        let tally = Tally()
        let deadline = Date().addingTimeInterval(60)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let client = try stack.client()
                while !enough(), Date() < deadline, tally.failure == nil {
                    let delivery = LiveDeliver(appKey: "memapp", msgID: String(tally.next()), kind: .message, content: content,
                                               expiresAt: Date().timeIntervalSince1970 + 600, registrationIDs: ids)
                    let reply = try JSONTreeDecoder().decode(JSONValue.self, from: client.call("live.deliver", payload: WireCodec.encode(delivery)))
                    if reply.code != 0 { tally.fail("live.deliver: \(reply)") }
                }
            } catch {
                tally.fail("\(error)")
            }
        }
        if let failure = tally.failure { throw StackError(failure) }
        return tally.count
    }

    /// Connections the process closed as slow readers, by its log.
    static func slowReaders(in log: String) -> Int {
        log.components(separatedBy: #"code=1008 reason="slow reader""#).count - 1
    }

    /// The process's resident set (VmRSS), in bytes.
    static func resident(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
            throw StackError("no VmRSS for \(pid)")
        }
        return kib * 1024
    }
}

/// The largest resident set a process reaches while watched, sampled every 10 ms on a thread of its own.
private final class ResidentWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var largest = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(pid: Int32) {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                if let now = try? ChannelMemoryTests.resident(pid) { lock.withLock { largest = max(largest, now) } }
                usleep(10_000)
            }
            done.signal()
        }
    }

    /// Stops watching; the largest resident set seen, in bytes.
    func stop() -> Int {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { largest }
    }
}

/// The deliveries' msg_ids, handed out once each, and the first failure.
private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var issued = 0
    private var first: String?

    func next() -> Int {
        lock.withLock {
            issued += 1
            return issued
        }
    }

    var count: Int { lock.withLock { issued } }
    var failure: String? { lock.withLock { first } }
    func fail(_ reason: String) { lock.withLock { first = first ?? reason } }
}
