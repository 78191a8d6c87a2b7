import Foundation
import HTTP2Client
import JSON
import Synchronization
import Testing

/// The HTTP/2 client against a fault-injecting server (Tests/apns/h2fault.py): what it does with
/// each way a server or a connection can fail, told apart as `.notSent` (safe to send again) and
/// `.lost` (the server may have acted).
@Suite("HTTP/2 client", .serialized)
struct HTTP2ClientTests {
    static func requests(_ fault: H2Fault, _ ids: Range<Int>, prefix: String = "", body: Data = Data("{\"aps\":{}}".utf8)) -> [HTTP2Request] {
        ids.map { HTTP2Request(url: fault.origin + "/3/device/00aa", headers: [("x-id", "\(prefix)\($0)"), ("content-type", "application/json")], body: body) }
    }

    static func client(_ fault: H2Fault?, _ change: (inout HTTP2Options) -> Void = { _ in }) throws -> HTTP2Client {
        var options = HTTP2Options(caFile: fault?.tls == true ? fault?.caFile : nil, maxConnections: 1, reconnectMin: 0.05, reconnectMax: 0.2)
        change(&options)
        return try HTTP2Client(options: options)
    }

    @Test("many requests over TLS with ALPN h2 ride one connection, each answered in order with its own body")
    func manyStreamsOneConnection() throws {
        let fault = try H2Fault()
        let client = try Self.client(fault) { $0.maxStreams = 100 }
        let requests = Self.requests(fault, 0..<500)
        let responses = client.sendAndWait(requests, lane: "a")
        #expect(responses.map(\.status) == Array(repeating: 200, count: 500), "\(responses.first { $0.status != 200 } as Any)")
        #expect(zip(requests, responses).allSatisfy { $0.body == $1.body })
        #expect(client.counters.connectionsOpened == 1)
        #expect(fault.events("over-limit").isEmpty)
        #expect(fault.processed().count == 500 && fault.processed().values.allSatisfy { $0 == 1 })
    }

    @Test("headers named unindexed (the path, an id) go never-indexed, out of HPACK's table; the others are indexed as before")
    func unindexedHeaders() throws {
        let fault = try H2Fault()
        let client = try Self.client(fault)
        var requests = Self.requests(fault, 0..<20)
        for index in 0..<10 { requests[index].unindexed = [":path", "x-id"] }
        let responses = client.sendAndWait(requests, lane: "a")
        #expect(responses.allSatisfy { $0.status == 200 })
        var unindexed: [String: [String]] = [:]
        for event in fault.events("request") {
            guard let id = event["id"]?.string, case .array(let names)? = event["unindexed"] else { continue }
            unindexed[id] = names.compactMap(\.string)
        }
        #expect(unindexed.count == 20)
        for id in 0..<20 {
            #expect(unindexed["\(id)"] == (id < 10 ? [":path", "x-id"] : []), "request \(id): \(unindexed["\(id)"] ?? [])")
        }
    }

    @Test("responseHeaders keeps only the headers named; nil keeps them all")
    func responseHeadersKept() throws {
        let fault = try H2Fault()
        for (kept, expected) in [(nil, ["content-length"]), (["retry-after"], []), (["content-length"], ["content-length"])] as [([String]?, [String])] {
            let client = try Self.client(fault) { $0.responseHeaders = kept }
            let responses = client.sendAndWait(Self.requests(fault, 0..<3), lane: "a")
            #expect(responses.allSatisfy { $0.status == 200 && $0.headers.keys.sorted() == expected }, "\(kept as Any): \(responses.map(\.headers))")
            client.stop()
        }
    }

    @Test("cleartext http:// speaks h2c with prior knowledge")
    func cleartext() throws {
        let fault = try H2Fault(tls: false)
        let client = try Self.client(fault)
        let responses = client.sendAndWait(Self.requests(fault, 0..<50), lane: "a")
        #expect(responses.allSatisfy { $0.status == 200 })
        #expect(client.counters.connectionsOpened == 1)
    }

    @Test("a host name is looked up (off the loop), its addresses tried in turn, and checked against the certificate's DNS name with SNI")
    func hostName() throws {
        let fault = try H2Fault()
        let client = try Self.client(fault) { $0.sendTimeout = 5 }
        let request = HTTP2Request(url: "https://localhost:\(fault.port)/3/device/00aa", headers: [("x-id", "0")], body: Data("{}".utf8))
        let response = client.sendAndWait([request], lane: "a")[0]
        #expect(response.status == 200, "\(response)")
    }

    @Test("a server that does not pick h2 in ALPN gets nothing: the requests end notSent, saying why")
    func alpnRefused() throws {
        let fault = try H2Fault(["--alpn", "http/1.1"])
        let client = try Self.client(fault) { $0.sendTimeout = 1 }
        let response = client.sendAndWait(Self.requests(fault, 0..<1), lane: "a")[0]
        guard case .notSent(let reason)? = response.failure else { Issue.record("\(response)"); return }
        #expect(reason.contains("did not pick h2"), "\(reason)")
        #expect(fault.events("request").isEmpty)
    }

    @Test("an untrusted certificate is refused: verification is never off")
    func untrustedCertificate() throws {
        let fault = try H2Fault()
        let client = try Self.client(nil) { $0.sendTimeout = 1 }
        let response = client.sendAndWait(Self.requests(fault, 0..<1), lane: "a")[0]
        guard case .notSent(let reason)? = response.failure else { Issue.record("\(response)"); return }
        #expect(reason.contains("certificate"), "\(reason)")
        #expect(fault.events("request").isEmpty)
    }

    @Test("the server's MAX_CONCURRENT_STREAMS is followed: 1 until raised, then more, then fewer again when lowered")
    func followsMaxConcurrentStreams() throws {
        let fault = try H2Fault(["--max-streams", "1", "--raise-streams", "20", "--lower-after", "40", "--lower-to", "2", "--delay", "0.05"])
        let client = try Self.client(fault) { $0.maxStreams = 100 }
        let responses = client.sendAndWait(Self.requests(fault, 0..<120), lane: "a")
        #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.first { $0.status != 200 } as Any)")
        #expect(fault.events("over-limit").isEmpty, "\(fault.events("over-limit"))")
        let open = fault.events("request").map { Int($0["open"]?.number ?? 0) }
        #expect(open.first == 1)
        #expect((open.max() ?? 0) >= 10, "the raise was used: \(open)")
        #expect(open.suffix(20).allSatisfy { $0 <= 2 }, "the lowering was followed: \(open.suffix(20))")
        #expect(client.counters.connectionsOpened == 1)
    }

    @Test("another connection opens only when every stream of the open ones is busy, up to maxConnections")
    func opensConnectionsWhenBusy() throws {
        let fault = try H2Fault(["--max-streams", "5", "--delay", "0.3"])
        let client = try Self.client(fault) { $0.maxConnections = 3 }
        #expect(client.sendAndWait(Self.requests(fault, 0..<5), lane: "a").allSatisfy { $0.status == 200 })
        #expect(client.counters.connectionsOpened == 1, "5 streams fit on the first")
        let responses = client.sendAndWait(Self.requests(fault, 5..<60), lane: "a")
        #expect(responses.allSatisfy { $0.status == 200 })
        #expect(client.counters.connectionsOpened == 3, "never more than maxConnections")
        #expect(fault.events("accept").count == 3)
        #expect(fault.events("over-limit").isEmpty)
    }

    @Test("lanes take free streams in turn: one lane's 300 waiting requests hold another's one back by a round at most")
    func fairLanes() throws {
        let fault = try H2Fault(["--max-streams", "1"])
        let client = try Self.client(fault)
        let big = Locked<[HTTP2Response]>([])
        let done = DispatchSemaphore(value: 0)
        client.send(Self.requests(fault, 0..<300, prefix: "big-"), lane: "big") { big.set($0); done.signal() }
        let small = client.sendAndWait(Self.requests(fault, 0..<1, prefix: "small-"), lane: "small")
        #expect(small[0].status == 200)
        done.wait()
        #expect(big.get().count == 300)
        let order = fault.events("request").compactMap { $0["id"]?.string }
        let position = try #require(order.firstIndex(of: "small-0"))
        #expect(position <= 2, "small-0 went \(position)th of \(order.count)")
    }

    @Test("GOAWAY: streams up to last-stream-id are answered there, the ones above go again on a new connection, each processed once")
    func goaway() throws {
        let fault = try H2Fault(["--goaway-after", "6", "--goaway-last", "3", "--delay", "0.3"])
        let client = try Self.client(fault)
        let responses = client.sendAndWait(Self.requests(fault, 0..<10), lane: "a")
        #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.map { $0.failure as Any })")
        let processed = fault.processed()
        #expect(processed.count == 10 && processed.values.allSatisfy { $0 == 1 }, "\(processed)")
        #expect(!fault.events("ignored").isEmpty, "some streams were above last-stream-id")
        #expect(client.counters.goawaysSeen == 1)
        #expect(client.counters.connectionsOpened == 2)
    }

    @Test("GOAWAY with an error, then the connection closes: streams at or below last-stream-id end lost, the ones above go again")
    func goawayWithError() throws {
        let fault = try H2Fault(["--goaway-after", "6", "--goaway-last", "2", "--goaway-error", "2", "--goaway-close", "--delay", "0.3"])
        let client = try Self.client(fault)
        let responses = client.sendAndWait(Self.requests(fault, 0..<10), lane: "a")
        let lost = responses.indices.filter { if case .lost? = responses[$0].failure { return true } else { return false } }
        #expect(lost.count == 2, "\(responses.map { $0.failure as Any })")
        #expect(lost.allSatisfy { responses[$0].failure?.reason.contains("GOAWAY INTERNAL_ERROR") == true }, "\(lost.map { responses[$0].failure as Any })")
        #expect(responses.indices.filter { responses[$0].status == 200 }.count == 8)
        #expect(fault.processed().values.allSatisfy { $0 == 1 }, "\(fault.processed())")
    }

    @Test("RST_STREAM REFUSED_STREAM: the request goes again and is processed once")
    func refusedStream() throws {
        let fault = try H2Fault(["--refuse", "3"])
        let client = try Self.client(fault)
        let responses = client.sendAndWait(Self.requests(fault, 0..<10), lane: "a")
        #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.map { $0.failure as Any })")
        #expect(fault.events("refused").count == 3)
        let processed = fault.processed()
        #expect(processed.count == 10 && processed.values.allSatisfy { $0 == 1 })
        #expect(client.counters.requestsRetried >= 3)
        #expect(client.counters.streamsReset >= 3)
    }

    @Test("RST_STREAM with another code (INTERNAL_ERROR) ends the request lost, never sent again")
    func resetStreamIsLost() throws {
        let fault = try H2Fault(["--reset-ids", "2,5"])
        let client = try Self.client(fault)
        let responses = client.sendAndWait(Self.requests(fault, 0..<8), lane: "a")
        for (index, response) in responses.enumerated() {
            if index == 2 || index == 5 {
                guard case .lost(let reason)? = response.failure else { Issue.record("\(index): \(response)"); continue }
                #expect(reason.contains("INTERNAL_ERROR"), "\(reason)")
            } else {
                #expect(response.status == 200)
            }
        }
        #expect(fault.processed().values.allSatisfy { $0 == 1 })
        #expect(client.counters.requestsRetried == 0)
    }

    @Test("a stalled connection is found by an unanswered PING: its written streams end lost, waiting requests go on a new one")
    func stalledConnection() throws {
        let fault = try H2Fault(["--stall-after", "2"])
        let client = try Self.client(fault) { $0.maxStreams = 2; $0.pingInterval = 0.2; $0.pingTimeout = 0.4 }
        let started = Date()
        let responses = client.sendAndWait(Self.requests(fault, 0..<6), lane: "a")
        #expect(Date().timeIntervalSince(started) < 10, "found by PING, long before the 30-s stream timeout")
        let lost = responses.indices.filter { if case .lost? = responses[$0].failure { return true } else { return false } }
        #expect(lost == [0, 1], "\(responses.map { $0.failure as Any })")
        #expect(responses[2...].allSatisfy { $0.status == 200 })
        #expect(client.counters.pingsSent >= 1)
        #expect(client.counters.connectionsOpened == 2)
        #expect(fault.processed().values.allSatisfy { $0 == 1 }, "the lost ones were not sent again")
    }

    @Test("on a connection found dead, requests it took but never wrote (stuck behind a full socket) go on a new one, not lost")
    func unwrittenOnDeadConnection() throws {
        // The server's receive buffer is fixed at 64 KB, and the body is several times what the
        // client's send buffer can grow to, so the socket fills while the server reads nothing,
        // whatever this machine's TCP buffer settings (a 32-MB body alone passed here and failed
        // on a machine whose buffers held it all: then the small requests were written, and lost).
        let fault = try H2Fault(["--stall-after", "1", "--window", "2147483647", "--receive-buffer", "65536"])
        let client = try Self.client(fault) { $0.maxStreams = 10; $0.pingInterval = 1; $0.pingTimeout = 1; $0.streamTimeout = 60 }
        let sendCeiling = Self.largestSendBuffer()
        let large = Locked<[HTTP2Response]>([])
        let done = DispatchSemaphore(value: 0)
        client.send(Self.requests(fault, 0..<1, body: Data(count: max(32 << 20, 4 * sendCeiling))), lane: "a") { large.set($0); done.signal() }
        #expect(eventually(10) { !fault.events("stalled").isEmpty })
        usleep(300_000)
        let small = client.sendAndWait(Self.requests(fault, 1..<4), lane: "a")
        done.wait()
        guard case .lost? = large.get().first?.failure else { Issue.record("\(large.get())"); return }
        #expect(small.allSatisfy { $0.status == 200 }, "\(small.map { $0.failure as Any })")
        #expect(fault.processed() == ["1": 1, "2": 1, "3": 1])
        #expect(client.counters.connectionsOpened == 2)
        #expect(client.counters.requestsRetried >= 3)
    }

    /// The most a TCP socket's send buffer can grow to here: tcp_wmem's maximum, or wmem_max.
    static func largestSendBuffer() -> Int {
        let automatic = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? 0
        let fixed = (try? String(contentsOfFile: "/proc/sys/net/core/wmem_max", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        return max(automatic, fixed, 4 << 20)
    }

    @Test("an idle connection is checked with a PING now and then, and stays open when it is answered")
    func idlePing() throws {
        let fault = try H2Fault()
        let client = try Self.client(fault) { $0.idlePingInterval = 0.2; $0.pingTimeout = 0.5 }
        #expect(client.sendAndWait(Self.requests(fault, 0..<1), lane: "a")[0].status == 200)
        #expect(eventually(5) { client.counters.pingsSent >= 3 })
        #expect(client.sendAndWait(Self.requests(fault, 1..<2), lane: "a")[0].status == 200)
        #expect(client.counters.connectionsOpened == 1, "the answered PINGs kept it")
    }

    @Test("a connection the server drops with streams open: those end lost, the waiting ones go on a new connection")
    func droppedConnection() throws {
        let fault = try H2Fault(["--close-after", "2"])
        let client = try Self.client(fault) { $0.maxStreams = 2 }
        let responses = client.sendAndWait(Self.requests(fault, 0..<6), lane: "a")
        let lost = responses.indices.filter { if case .lost? = responses[$0].failure { return true } else { return false } }
        #expect(lost == [0, 1], "\(responses.map { $0.failure as Any })")
        #expect(responses[2...].allSatisfy { $0.status == 200 })
        #expect(fault.processed().values.allSatisfy { $0 == 1 })
    }

    @Test("a stream with no response within streamTimeout is reset with CANCEL and ends lost")
    func streamTimeout() throws {
        let fault = try H2Fault(["--delay", "5"])
        let client = try Self.client(fault) { $0.streamTimeout = 0.4 }
        let started = Date()
        let responses = client.sendAndWait(Self.requests(fault, 0..<2), lane: "a")
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(responses.allSatisfy { if case .lost? = $0.failure { return true } else { return false } }, "\(responses)")
        #expect(client.counters.streamsCancelled == 2)
        #expect(eventually(5) { fault.events("client-reset").filter { $0["code"]?.number == 8 }.count == 2 }, "RST_STREAM CANCEL reached the server")
    }

    @Test("nothing listening: requests end notSent once sendTimeout passes, with the connect error")
    func nothingListening() throws {
        let client = try Self.client(nil) { $0.sendTimeout = 0.6 }
        let started = Date()
        let response = client.sendAndWait([HTTP2Request(url: "https://127.0.0.1:1/x")], lane: "a")[0]
        #expect(Date().timeIntervalSince(started) < 3)
        guard case .notSent(let reason)? = response.failure else { Issue.record("\(response)"); return }
        #expect(reason.contains("refused"), "\(reason)")
    }

    @Test("reconnects back off: a server that drops every connection sees a handful of attempts, not a flood")
    func reconnectBackoff() throws {
        let fault = try H2Fault(["--close-on-accept"])
        let client = try Self.client(fault) { $0.sendTimeout = 2; $0.reconnectMin = 0.1; $0.reconnectMax = 0.4 }
        let response = client.sendAndWait(Self.requests(fault, 0..<1), lane: "a")[0]
        guard case .notSent? = response.failure else { Issue.record("\(response)"); return }
        let accepts = fault.events("accept").count
        #expect(accepts >= 3 && accepts <= 12, "\(accepts) connections in 2 s")
        #expect(client.counters.connectionsFailed == accepts)
    }

    @Test("flow control: a body larger than the server's windows goes whole, and a large answer is acknowledged as it is read")
    func flowControl() throws {
        let upload = try H2Fault(["--window", "1024"])
        let client = try Self.client(upload) { $0.streamTimeout = 20 }
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let echoed = client.sendAndWait(Self.requests(upload, 0..<3, body: body), lane: "a")
        #expect(echoed.allSatisfy { $0.status == 200 && $0.body == body }, "\(echoed.map { ($0.status, $0.body.count, $0.failure as Any) })\n\(upload.output.suffix(2000))")

        let download = try H2Fault(["--response-bytes", "1000000"])
        let small = try Self.client(download) { $0.receiveWindow = 65_535; $0.streamTimeout = 20 }
        let answers = small.sendAndWait(Self.requests(download, 0..<3), lane: "a")
        #expect(answers.allSatisfy { $0.status == 200 && $0.body.count == 1_000_000 }, "\(answers.map(\.failure))")
    }

    @Test("a header with CR, LF or NUL, or a bad name, is refused before anything is written")
    func headerInjection() throws {
        let fault = try H2Fault()
        let client = try Self.client(fault)
        let url = fault.origin + "/3/device/00aa"
        let requests = [
            HTTP2Request(url: url, headers: [("x-id", "0"), ("apns-topic", "a\r\nx-evil: 1")]),
            HTTP2Request(url: url, headers: [("x-id", "1"), ("apns-topic", "a\0b")]),
            HTTP2Request(url: url, headers: [("x-id", "2"), ("x bad", "1")]),
            HTTP2Request(url: url, headers: [("x-id", "3"), ("apns-topic", "a\nb")]),
            HTTP2Request(url: url, headers: [("x-id", "4"), ("Connection", "close")]),
            HTTP2Request(url: url, headers: [("x-id", "5"), ("apns-topic", "fine")]),
        ]
        let responses = client.sendAndWait(requests, lane: "a")
        for response in responses.prefix(5) {
            guard case .notSent? = response.failure else { Issue.record("\(response)"); continue }
        }
        #expect(responses[5].status == 200)
        #expect(fault.processed() == ["5": 1])
    }

    @Test("stop ends every call once: written streams lost, waiting ones notSent; twice is fine, and a send after it ends at once")
    func stop() throws {
        let fault = try H2Fault(["--delay", "10"])
        let client = try Self.client(fault) { $0.maxStreams = 1 }
        let calls = Locked(0)
        let answer = Locked<[HTTP2Response]>([])
        let done = DispatchSemaphore(value: 0)
        client.send(Self.requests(fault, 0..<3), lane: "a") { responses in
            calls.update { $0 += 1 }
            answer.set(responses)
            done.signal()
        }
        #expect(eventually(10) { fault.events("request").count == 1 })
        client.stop()
        client.stop()
        done.wait()
        #expect(calls.get() == 1)
        let failures = answer.get().map(\.failure)
        guard case .lost? = failures[0] else { Issue.record("\(failures)"); return }
        #expect(failures[1...].allSatisfy { if case .notSent? = $0 { return true } else { return false } }, "\(failures)")
        let after = client.sendAndWait(Self.requests(fault, 3..<4), lane: "a")
        #expect(after[0].failure == .notSent("the client stopped"))
    }
}

/// A value shared between a test and the client's loop thread.
final class Locked<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func get() -> Value { value.withLock { $0 } }
    func set(_ new: Value) { value.withLock { $0 = new } }
    func update(_ change: (inout Value) -> Void) { value.withLock { change(&$0) } }
}
