import Testing
@testable import WebSocket

/// The frame codec, the reader that turns frames into messages, and the handshake, with no sockets.
@Suite struct WebSocketFrameTests {
    private func violation(_ bytes: [UInt8], maxMessageBytes: Int = 65_536) -> WebSocketError? {
        var reader = WebSocketReader(maxMessageBytes: maxMessageBytes)
        reader.append(bytes)
        do {
            while try reader.next() != nil {}
            return nil
        } catch {
            return error
        }
    }

    private func events(_ bytes: [UInt8], maxMessageBytes: Int = 65_536) throws -> [WebSocketEvent] {
        var reader = WebSocketReader(maxMessageBytes: maxMessageBytes)
        reader.append(bytes)
        var events: [WebSocketEvent] = []
        while let event = try reader.next() { events.append(event) }
        #expect(reader.buffered == 0)
        return events
    }

    @Test(arguments: [(0, 0), (125, 0), (126, 2), (65_535, 2), (65_536, 8), (70_000, 8)])
    func lengthFormsRoundTrip(size: Int, extra: Int) throws {
        let payload = (0..<size).map { UInt8($0 % 251) }
        for mask: UInt32? in [nil, 0x37FA_213D] {
            let bytes = WebSocketFrame(opcode: .text, payload: payload).encoded(mask: mask)
            #expect(bytes.count == 2 + extra + (mask == nil ? 0 : 4) + size)
            #expect(bytes[1] & 0x7F == (extra == 0 ? UInt8(size) : extra == 2 ? 126 : 127))
            let step = try WebSocketFrameDecoder.decode(bytes, maxPayload: 100_000, requireMask: mask != nil)
            #expect(step == .frame(WebSocketFrame(opcode: .text, payload: payload), consumed: bytes.count))
        }
    }

    /// A read that ends inside a frame leaves the reader holding that frame's bytes, not the read's.
    @Test func anUnfinishedFrameHoldsOnlyItsOwnBytes() throws {
        let frame = WebSocketFrame(opcode: .text, payload: Array(repeating: 0x61, count: 100)).encoded(mask: 1)
        var read: [UInt8] = []
        while read.count < 60_000 { read += frame }
        var reader = WebSocketReader(maxMessageBytes: 1_000)
        reader.append(read + frame.prefix(10))
        while try reader.next() != nil {}
        #expect(reader.buffered == 10)
        #expect(reader.reserved < 1_000, "\(reader.reserved) bytes reserved for 10 held")
        reader.append(Array(frame.dropFirst(10)))
        #expect(try reader.next() == .text(String(repeating: "a", count: 100)))
        #expect(reader.reserved == 0)
    }

    @Test func masksAsTheRFCExampleShows() throws {
        let hello = WebSocketFrame.text("Hello")
        #expect(hello.encoded() == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        let masked: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(hello.encoded(mask: 0x37FA_213D) == masked)
        #expect(try WebSocketFrameDecoder.decode(masked, maxPayload: 125) == .frame(hello, consumed: masked.count))
    }

    @Test func truncatedInputAsksForMoreBytes() throws {
        let bytes = WebSocketFrame(opcode: .text, payload: Array(repeating: 0x61, count: 300)).encoded(mask: 1)
        for cut in 0..<bytes.count {
            guard case .needMore(let missing) = try WebSocketFrameDecoder.decode(Array(bytes[..<cut]), maxPayload: 1_000) else {
                Issue.record("a frame cut at \(cut) bytes decoded")
                continue
            }
            #expect(missing > 0 && cut + missing <= bytes.count)
        }
        var reader = WebSocketReader(maxMessageBytes: 1_000)
        reader.append(Array(bytes[..<150]))
        #expect(try reader.next() == nil)
        reader.append(Array(bytes[150...]))
        #expect(try reader.next() == .text(String(repeating: "a", count: 300)))
    }

    @Test func reassemblesFragmentsAroundControlFrames() throws {
        let bytes = WebSocketFrame(fin: false, opcode: .text, payload: Array("hé".utf8.prefix(2))).encoded(mask: 7)
            + WebSocketFrame(opcode: .ping, payload: [1, 2]).encoded(mask: 8)
            + WebSocketFrame(fin: false, opcode: .continuation, payload: Array("hé".utf8.dropFirst(2)) + Array("l".utf8)).encoded(mask: 9)
            + WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)).encoded(mask: 10)
        #expect(try events(bytes) == [.fragment, .ping([1, 2]), .fragment, .text("héllo")])
    }

    @Test func readsCloseFrames() throws {
        #expect(try events(WebSocketFrame.close(code: 4000, reason: "bye").encoded(mask: 3)) == [.close(code: 4000, reason: "bye")])
        #expect(try events(WebSocketFrame(opcode: .close).encoded(mask: 3)) == [.close(code: 1005, reason: "")])
        let long = WebSocketFrame.close(code: 1000, reason: String(repeating: "é", count: 100))
        #expect(long.payload.count <= 125)
        #expect(String(validating: long.payload.dropFirst(2), as: UTF8.self) != nil)
    }

    @Test func protocolErrorsMapToCloseCodes() {
        let text = Array("hi".utf8)
        var rsv = WebSocketFrame.text("hi").encoded(mask: 1)
        rsv[0] |= 0x40
        var unknown = WebSocketFrame.text("hi").encoded(mask: 1)
        unknown[0] = 0x83
        let cases: [(String, [UInt8], UInt16)] = [
            ("unmasked", WebSocketFrame.text("hi").encoded(), 1002),
            ("reserved bits", rsv, 1002),
            ("unknown opcode", unknown, 1002),
            ("long control frame", WebSocketFrame(opcode: .ping, payload: Array(repeating: 0, count: 126)).encoded(mask: 1), 1002),
            ("fragmented control frame", WebSocketFrame(fin: false, opcode: .ping, payload: text).encoded(mask: 1), 1002),
            ("continuation without start", WebSocketFrame(opcode: .continuation, payload: text).encoded(mask: 1), 1002),
            ("new message mid-message", WebSocketFrame(fin: false, opcode: .text, payload: text).encoded(mask: 1)
                + WebSocketFrame.text("hi").encoded(mask: 1), 1002),
            ("one-byte close", WebSocketFrame(opcode: .close, payload: [3]).encoded(mask: 1), 1002),
            ("close code 1005 on the wire", WebSocketFrame.close(code: 1005, reason: "").encoded(mask: 1), 1002),
            ("binary", WebSocketFrame(opcode: .binary, payload: text).encoded(mask: 1), 1003),
            ("invalid UTF-8", WebSocketFrame(opcode: .text, payload: [0x68, 0xC3, 0x28]).encoded(mask: 1), 1007),
            ("invalid UTF-8 across fragments", WebSocketFrame(fin: false, opcode: .text, payload: [0x68, 0xC3]).encoded(mask: 1)
                + WebSocketFrame(opcode: .continuation, payload: [0x28]).encoded(mask: 1), 1007),
            ("close reason not UTF-8", WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xFF]).encoded(mask: 1), 1007),
        ]
        for (name, bytes, code) in cases {
            #expect(violation(bytes)?.closeCode == code, "\(name)")
        }
        #expect(violation(WebSocketFrame(opcode: .binary, payload: text).encoded(mask: 1))
                == .violation(code: 1003, reason: "binary frames are not accepted"))
    }

    @Test func oversizedMessageIsRefusedFromItsHeader() {
        let header = Array(WebSocketFrame(opcode: .text, payload: Array(repeating: 0, count: 2_000)).encoded(mask: 1).prefix(8))
        #expect(violation(header, maxMessageBytes: 1_000)?.closeCode == 1009)
        let fragments = WebSocketFrame(fin: false, opcode: .text, payload: Array(repeating: 0x61, count: 600)).encoded(mask: 1)
            + Array(WebSocketFrame(opcode: .continuation, payload: Array(repeating: 0x61, count: 600)).encoded(mask: 1).prefix(8))
        #expect(violation(fragments, maxMessageBytes: 1_000)?.closeCode == 1009)
        #expect(violation(WebSocketFrame(opcode: .text, payload: Array(repeating: 0x61, count: 1_000)).encoded(mask: 1),
                          maxMessageBytes: 1_000) == nil)
    }

    @Test func handshakeAnswers() {
        #expect(WebSocketHandshake.accept(key: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let good = ["upgrade": "websocket", "connection": "keep-alive, Upgrade", "sec-websocket-version": "13",
                    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="]
        func answer(_ method: String = "GET", _ path: String = "/ws", _ headers: [String: String] = good) -> UInt32 {
            switch WebSocketHandshake.answer(method: method, path: path, expectedPath: "/ws", header: { headers[$0.lowercased()] }) {
            case .upgrade: return 101
            case .reject(let status, _, _): return status
            }
        }
        #expect(answer() == 101)
        #expect(answer("GET", "/other") == 404)
        #expect(answer("POST") == 400)
        #expect(answer("GET", "/ws", good.filter { $0.key != "upgrade" }) == 426)
        #expect(answer("GET", "/ws", good.merging(["connection": "keep-alive"]) { $1 }) == 400)
        #expect(answer("GET", "/ws", good.merging(["sec-websocket-version": "8"]) { $1 }) == 426)
        #expect(answer("GET", "/ws", good.merging(["sec-websocket-key": "short"]) { $1 }) == 400)
    }
}
