import Foundation
import Testing
import WebSocket

/// The WebSocket server through real sockets on loopback: a raw client written for the tests and
/// Python's `websockets`, an independent implementation, against an echoing delegate.
@Suite struct WebSocketServerTests {
    @Test func handshakeAndTextBothWays() throws {
        try withServer { server, recorder in
            let (client, id) = try openClient(server, recorder)
            #expect(recorder.peer(of: id)?.hasPrefix("127.0.0.1:") == true)
            #expect(eventually(5) { server.connectionCount == 1 })
            for size in [5, 300, 65_536] {
                let text = String(repeating: "é", count: size / 2) + (size % 2 == 1 ? "!" : "")
                try client.sendText(text)
                #expect(try client.readText() == text)
            }
            try client.sendFrame(opcode: 0x1, payload: Array("frag".utf8), fin: false)
            try client.sendFrame(opcode: 0x9, payload: [7, 7])
            try client.sendFrame(opcode: 0x0, payload: Array("ments".utf8))
            #expect(try client.readFrame() == .init(fin: true, opcode: 0xA, payload: [7, 7]))
            #expect(try client.readText() == "fragments")
            try client.sendClose(code: 1000, reason: "done")
            #expect(try client.readClose()?.code == 1000)
            #expect(try client.readToEnd())
            #expect(eventually(5) { recorder.close(of: id) == Close(code: 1000, reason: "done") })
            #expect(eventually(1) { server.connectionCount == 0 })
        }
    }

    @Test func answersHandshakeHeaders() throws {
        try withServer { server, _ in
            let client = try WebSocketTestClient(port: server.boundPort)
            let head = try client.handshake()
            #expect(head.status == 101)
            #expect(head.headers["upgrade"]?.lowercased() == "websocket")
            #expect(head.headers["connection"]?.lowercased().contains("upgrade") == true)
            #expect(head.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        }
    }

    @Test func framesSentWithTheHandshakeAreNotLost() throws {
        try withServer { server, _ in
            let client = try WebSocketTestClient(port: server.boundPort)
            let frames = WebSocketTestClient.frame(opcode: 0x1, payload: Array("early".utf8))
                + WebSocketTestClient.frame(opcode: 0x1, payload: Array("bird".utf8))
            #expect(try client.handshake(trailing: frames).status == 101)
            #expect(try client.readText() == "early")
            #expect(try client.readText() == "bird")
        }
    }

    @Test func connectionLimitCountsUpgradedConnections() throws {
        try withServer(WebSocketLimits(maxConnections: 2)) { server, recorder in
            let first = try openClient(server, recorder)
            let second = try openClient(server, recorder)
            let third = try WebSocketTestClient(port: server.boundPort, timeout: 2)
            #expect((try? third.handshake())?.status != 101)
            #expect(recorder.opened.count == 2)
            try first.0.sendText("one")
            #expect(try first.0.readText() == "one")
            _ = second
        }
    }

    @Test func interoperatesWithPythonWebsockets() throws {
        try withServer { server, recorder in
            let python = try PythonClient(port: server.boundPort, mode: "echo")
            #expect(eventually(10) { recorder.messages.contains("close me") })
            let id = try #require(recorder.opened.last)
            DispatchQueue.global().async { server.close(id, code: 4002, reason: "from test") }
            let result = try python.finish()
            #expect(result["echo"] as? String == "héllo ✓")
            #expect(result["big"] as? Int == 65_536)
            #expect(result["closed"] as? [AnyHashable] == [4002, "from test"])
            #expect(recorder.close(of: id) == Close(code: 4002, reason: "from test"))
        }
    }

    @Test func oversizedMessageClosesWith1009WhileOthersGoOn() throws {
        try withServer { server, recorder in
            let (big, bigID) = try openClient(server, recorder)
            let (small, _) = try openClient(server, recorder)
            let frame = WebSocketTestClient.frame(opcode: 0x1, payload: Array(repeating: 0x61, count: 70_000))
            try big.sendRaw(Array(frame.prefix(1_000)))
            #expect(try big.readClose()?.code == 1009)
            #expect(recorder.close(of: bigID)?.code == 1009)
            try small.sendText("still here")
            #expect(try small.readText() == "still here")
        }
    }

    @Test func binaryClosesWith1003() throws {
        try withServer { server, recorder in
            let (client, id) = try openClient(server, recorder)
            try client.sendFrame(opcode: 0x2, payload: [1, 2, 3])
            let close = try client.readClose()
            #expect(close?.code == 1003)
            #expect(close?.reason == "binary frames are not accepted")
            #expect(eventually(5) { recorder.close(of: id)?.code == 1003 })
        }
    }

    @Test func unmaskedFrameClosesWith1002() throws {
        try withServer { server, recorder in
            let (client, id) = try openClient(server, recorder)
            try client.sendFrame(opcode: 0x1, payload: Array("plain".utf8), masked: false)
            #expect(try client.readClose()?.code == 1002)
            #expect(eventually(5) { recorder.close(of: id)?.code == 1002 })
            #expect(recorder.messages.isEmpty)
        }
    }

    @Test func garbageDoesNotHurtOtherConnections() throws {
        try withServer { server, recorder in
            let (good, _) = try openClient(server, recorder)
            let noise = try WebSocketTestClient(port: server.boundPort, timeout: 5)
            try noise.sendRaw((0..<4_096).map { _ in UInt8.random(in: 0...255) } + Array("\r\n\r\n".utf8))
            _ = try? noise.readToEnd()
            let (framed, framedID) = try openClient(server, recorder)
            try framed.sendRaw((0..<4_096).map { _ in UInt8.random(in: 0...255) })
            _ = try? framed.readToEnd()
            #expect(eventually(5) { recorder.close(of: framedID) != nil })
            try good.sendText("unaffected")
            #expect(try good.readText() == "unaffected")
            #expect(recorder.opened.count == 2)
        }
    }

    @Test func floodOfFramesClosesWith1008() throws {
        try withServer(WebSocketLimits(framesPerSecond: 50)) { server, recorder in
            let (client, id) = try openClient(server, recorder)
            let pings = (0..<300).flatMap { WebSocketTestClient.frame(opcode: 0x9, payload: [UInt8($0 & 0xFF)]) }
            try? client.sendRaw(pings)
            #expect(try client.readFrame() == .init(fin: true, opcode: 0xA, payload: [0]))
            let close = try client.readClose()
            #expect(close?.code == 1008)
            #expect(close?.reason == "too many frames")
            #expect(eventually(5) { recorder.close(of: id) == Close(code: 1008, reason: "too many frames") })
        }
    }

    @Test func slowReaderIsClosedAndItsQueueStaysBounded() throws {
        let limits = WebSocketLimits()
        try withServer(limits) { server, recorder in
            let (client, id) = try openClient(server, recorder, receiveBuffer: 4_096)
            let chunk = String(repeating: "x", count: 65_000)
            var sent = 0
            var largest = 0
            let deadline = Date().addingTimeInterval(30)
            while recorder.close(of: id) == nil, Date() < deadline, sent < 256 << 20 {
                server.send(chunk, to: id)
                sent += chunk.utf8.count
                usleep(500)
                largest = max(largest, server.queuedBytes)
            }
            #expect(recorder.close(of: id) == Close(code: 1008, reason: "slow reader"))
            #expect(sent > limits.maxQueuedBytes)
            #expect(largest <= limits.maxQueuedBytes + 256)
            #expect(eventually(5) { server.connectionCount == 0 && server.queuedBytes == 0 })
            _ = client
        }
    }

    @Test func pingsKeepLiveClientsAndDropDeadOnes() throws {
        let limits = WebSocketLimits(pingInterval: 0.2, pongTimeout: 0.3, handshakeTimeout: 1)
        try withServer(limits) { server, recorder in
            let (dead, deadID) = try openClient(server, recorder)
            let opened = Date()
            let python = try PythonClient(port: server.boundPort, mode: "idle")
            #expect(eventually(3) { recorder.close(of: deadID) != nil })
            #expect(Date().timeIntervalSince(opened) < 1.5)
            #expect(recorder.close(of: deadID)?.code == 1006)
            #expect(try dead.readFrame()?.opcode == 0x9)
            let result = try python.finish()
            #expect(result["idle"] as? String == "quiet")
            #expect(result["alive"] as? String == "alive")
            let live = recorder.opened.filter { $0 != deadID }
            #expect(live.count == 1)
            #expect(eventually(5) { live.allSatisfy { recorder.close(of: $0)?.code == 1000 } })
        }
    }

    @Test func closeFromAnotherThreadReachesTheClient() throws {
        try withServer { server, recorder in
            let (client, id) = try openClient(server, recorder)
            server.send("first", to: id)
            Thread.detachNewThread { server.close(id, code: 4001, reason: "bye now") }
            #expect(try client.readText() == "first")
            let close = try client.readClose()
            #expect(close?.code == 4001)
            #expect(close?.reason == "bye now")
            #expect(try client.readToEnd())
            client.hangUp()
            #expect(recorder.close(of: id) == Close(code: 4001, reason: "bye now"))
            server.send("too late", to: id)
            server.close(id, code: 1000, reason: "again")
            #expect(eventually(1) { server.connectionCount == 0 })
        }
    }

    @Test func otherRequestsGetPlainHTTPErrors() throws {
        try withServer { server, recorder in
            let wrongPath = try WebSocketTestClient(port: server.boundPort).handshake(path: "/nope")
            #expect(wrongPath.status == 404)
            #expect(wrongPath.headers["upgrade"] == nil)
            let oldVersion = try WebSocketTestClient(port: server.boundPort).handshake(version: "8")
            #expect(oldVersion.status == 426)
            #expect(oldVersion.headers["sec-websocket-version"] == "13")
            let plain = try WebSocketTestClient(port: server.boundPort)
                .handshake(request: "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(plain.status == 426)
            #expect(recorder.opened.isEmpty)
        }
    }

    /// A client that trickles its handshake a header line at a time holds a connection only until
    /// the handshake deadline (the idle timeout alone would restart on every line), one address only
    /// its share, and meanwhile other devices connect as usual.
    @Test func slowHandshakesAreCutAtTheirDeadlineAndOthersConnectMeanwhile() throws {
        var limits = WebSocketLimits()
        limits.handshakeTimeout = 3
        limits.perAddress = 60
        try withServer(limits) { server, recorder in
            let slow = try SlowClients(port: server.boundPort, count: 300, perAddress: 50)
            defer { slow.close() }
            slow.trickle()
            #expect(slow.openCount() == 300)
            let greedy = try SlowClients(port: server.boundPort, count: 100, perAddress: 100, firstHost: 40)
            defer { greedy.close() }
            greedy.trickle()
            usleep(300_000)
            #expect(greedy.openCount() <= 60, "one address holds \(greedy.openCount()) connections")
            let (client, id) = try openClient(server, recorder)
            try client.sendText("still here")
            #expect(try client.readText() == "still here")
            let deadline = Date().addingTimeInterval(6)
            while Date() < deadline && slow.openCount() > 0 {
                slow.trickle()
                usleep(250_000)
            }
            #expect(slow.openCount() == 0, "\(slow.openCount()) slow handshakes outlived the 3-s deadline")
            try client.sendText("and after")
            #expect(try client.readText() == "and after", "an upgraded connection is not subject to the handshake deadline")
            server.close(id, code: 1000, reason: "done")
        }
    }

    @Test func stopClosesEveryConnectionAndIsSafeTwice() throws {
        let recorder = Recorder()
        let server = WebSocketServer(host: "127.0.0.1", port: 0, path: "/ws", limits: WebSocketLimits(), delegate: recorder)
        server.stop()
        try server.start()
        let (client, id) = try openClient(server, recorder)
        server.stop()
        server.stop()
        let close = try client.readClose()
        #expect(close?.code == 1001)
        #expect(close?.reason == "going away")
        #expect(recorder.close(of: id) == Close(code: 1001, reason: "going away"))
        #expect(server.connectionCount == 0)
        server.send("after stop", to: id)
    }

    @Test func stopLetsGoOfADelegateThatHoldsTheServer() throws {
        final class Owner: WebSocketDelegate {
            var server: WebSocketServer?
            func opened(_ connection: ConnectionID, peer: String) {}
            func received(_ text: String, from connection: ConnectionID) {}
            func closed(_ connection: ConnectionID, code: UInt16, reason: String) {}
        }
        weak var released: Owner?
        do {
            let owner = Owner()
            owner.server = WebSocketServer(host: "127.0.0.1", port: 0, path: "/ws", limits: WebSocketLimits(), delegate: owner)
            released = owner
            try owner.server?.start()
            owner.server?.stop()
        }
        #expect(released == nil)
    }

    @Test func sharesAPortButThrowsWhenItCannotBind() throws {
        let recorder = Recorder()
        let first = WebSocketServer(host: "127.0.0.1", port: 0, path: "/ws", limits: WebSocketLimits(), delegate: recorder)
        try first.start()
        defer { first.stop() }
        let second = WebSocketServer(host: "127.0.0.1", port: first.boundPort, path: "/ws", limits: WebSocketLimits(), delegate: recorder)
        try second.start()
        second.stop()

        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(bound == 0 && listen(holder, 8) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(holder, $0, &length) }
        }
        let taken = WebSocketServer(host: "127.0.0.1", port: Int(UInt16(bigEndian: address.sin_port)), path: "/ws",
                                    limits: WebSocketLimits(), delegate: recorder)
        #expect(throws: WebSocketError.self) { try taken.start() }
        taken.stop()
    }
}

// MARK: - Support

private struct Close: Equatable {
    let code: UInt16
    let reason: String
}

/// The delegate the tests run against: records everything and echoes every message back, except
/// "close me", which waits for the test to close the connection.
private final class Recorder: WebSocketDelegate, @unchecked Sendable {
    private let lock = NSLock()
    weak var server: WebSocketServer?
    private var openedIDs: [ConnectionID] = []
    private var peers: [ConnectionID: String] = [:]
    private var texts: [String] = []
    private var closes: [ConnectionID: [Close]] = [:]

    func opened(_ connection: ConnectionID, peer: String) {
        lock.withLock {
            openedIDs.append(connection)
            peers[connection] = peer
        }
    }

    func received(_ text: String, from connection: ConnectionID) {
        lock.withLock { texts.append(text) }
        if text != "close me" { server?.send(text, to: connection) }
    }

    func closed(_ connection: ConnectionID, code: UInt16, reason: String) {
        lock.withLock { closes[connection, default: []].append(Close(code: code, reason: reason)) }
    }

    var opened: [ConnectionID] { lock.withLock { openedIDs } }
    var messages: [String] { lock.withLock { texts } }
    func peer(of connection: ConnectionID) -> String? { lock.withLock { peers[connection] } }
    func close(of connection: ConnectionID) -> Close? { lock.withLock { closes[connection]?.first } }

    /// Whether every opened connection was reported closed exactly once, and no other was.
    var closedExactlyOnce: Bool {
        lock.withLock { Set(openedIDs) == Set(closes.keys) && closes.values.allSatisfy { $0.count == 1 } }
    }
}

/// Runs `body` against a started server on 127.0.0.1 (a free port, path "/ws") with an echoing
/// recorder; then stops it and checks every connection was reported closed exactly once.
private func withServer(_ limits: WebSocketLimits = WebSocketLimits(),
                        _ body: (WebSocketServer, Recorder) throws -> Void) throws {
    let recorder = Recorder()
    let server = WebSocketServer(host: "127.0.0.1", port: 0, path: "/ws", limits: limits, delegate: recorder)
    recorder.server = server
    try server.start()
    #expect(server.boundPort > 0)
    defer { server.stop() }
    try body(server, recorder)
    server.stop()
    #expect(recorder.closedExactlyOnce)
}

/// A raw client that finished the handshake, and its id once the server has reported it opened.
private func openClient(_ server: WebSocketServer, _ recorder: Recorder, receiveBuffer: Int? = nil) throws
    -> (WebSocketTestClient, ConnectionID) {
    let before = recorder.opened.count
    let client = try WebSocketTestClient(port: server.boundPort, receiveBuffer: receiveBuffer)
    let head = try client.handshake()
    try #require(head.status == 101)
    try #require(eventually(5) { recorder.opened.count > before })
    return (client, recorder.opened[before])
}

/// Python's `websockets` (sync client) in a child process; prints one JSON object when done.
private struct PythonClient {
    static let script = """
        import json, sys
        from websockets.sync.client import connect
        from websockets.exceptions import ConnectionClosed
        port, mode, out = int(sys.argv[1]), sys.argv[2], {}
        with connect(f"ws://127.0.0.1:{port}/ws", ping_interval=None, max_size=None, open_timeout=5) as ws:
            if mode == "echo":
                ws.send("héllo ✓"); out["echo"] = ws.recv(timeout=5)
                ws.send("x" * 65536); out["big"] = len(ws.recv(timeout=5))
                ws.send("close me")
                try:
                    ws.recv(timeout=5); out["closed"] = "no close"
                except ConnectionClosed as error:
                    out["closed"] = [error.rcvd.code, error.rcvd.reason] if error.rcvd else None
            else:
                try:
                    ws.recv(timeout=2); out["idle"] = "message"
                except TimeoutError:
                    out["idle"] = "quiet"
                ws.send("alive"); out["alive"] = ws.recv(timeout=5)
        print(json.dumps(out))
        """

    let process = Process()
    let output = Pipe()
    let errors = Pipe()

    init(port: Int, mode: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, String(port), mode]
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Waits for the script and returns what it printed; throws when it failed.
    func finish() throws -> [String: Any] {
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let result = try JSONSerialization.jsonObject(with: printed) as? [String: Any] else {
            throw WebSocketTestClient.Failure("python failed: \(String(decoding: complaint, as: UTF8.self))")
        }
        return result
    }
}
