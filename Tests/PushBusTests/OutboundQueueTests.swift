import Foundation
import Testing
@testable import WebSocket

/// A connection's outgoing queue on a Unix socket pair whose sending side takes little at a time,
/// read back on the other side: frames arrive whole and in order whatever the socket took, across
/// the ring's end, and the ring is mapped only while bytes wait.
@Suite struct OutboundQueueTests {
    @Test func framesTheSocketTakesGoStraightThroughAndMapNothing() throws {
        let pair = try Pair()
        var queue = OutboundQueue(room: 262_144)
        let frame = WebSocketFrame.encode(opcode: .text, payload: Array("hello".utf8))
        #expect(queue.send(frame, to: pair.sender) == .drained)
        #expect(queue.isEmpty && !queue.isMapped)
        #expect(pair.drain() == frame)
    }

    @Test func whatTheSocketLeavesWaitsInOrderAcrossTheRingsEnd() throws {
        let pair = try Pair()
        var queue = OutboundQueue(room: 100_000)
        #expect(queue.capacity == 102_400, "a whole number of pages")
        var sent: [UInt8] = []
        var ends: [Int] = []
        var received: [UInt8] = []
        var random = SystemRandomNumberGenerator()
        // Every length form, the 16-bit one most; the ring wraps many times over.
        for round in 0..<600 {
            let size = round % 100 == 99 ? 70_000 : round % 20 == 0 ? 17_000 : Int.random(in: 0...3_000, using: &random)
            let frame = WebSocketFrame.encode(opcode: .text, payload: (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ round) })
            while queue.count + frame.count > queue.capacity {
                received += pair.drain(upTo: Int.random(in: 1...30_000, using: &random))
                guard queue.write(to: pair.sender) != .failed else { throw StackError("the socket failed") }
            }
            #expect(queue.send(frame, to: pair.sender) != .failed)
            sent += frame
            ends.append(sent.count)
        }
        #expect(queue.isMapped && !queue.isEmpty)
        // Dropped now: what follows the frame being written goes, that frame stays whole.
        let taken = sent.count - queue.count
        queue.dropUnstarted()
        let kept = try #require(ends.first { $0 >= taken })
        #expect(queue.count == kept - taken)
        let close = WebSocketFrame.close(code: 1008, reason: "slow reader").encoded()
        #expect(queue.send(close, to: pair.sender) != .failed)
        while !queue.isEmpty {
            received += pair.drain()
            guard queue.write(to: pair.sender) != .failed else { throw StackError("the socket failed") }
        }
        received += pair.drain()
        #expect(received.count == kept + close.count)
        #expect(received.prefix(kept).elementsEqual(sent.prefix(kept)) && received.suffix(close.count).elementsEqual(close))
        queue.release()
        let mapped = queue.isMapped
        #expect(!mapped)
    }

    @Test func droppingUnstartedFramesKeepsTheOneHalfWrittenWhole() throws {
        let pair = try Pair()
        var queue = OutboundQueue(room: 262_144)
        let big = WebSocketFrame.encode(opcode: .text, payload: [UInt8](repeating: 0x61, count: 100_000))
        let small = WebSocketFrame.encode(opcode: .text, payload: Array("later".utf8))
        #expect(queue.send(big, to: pair.sender) == .blocked, "the socket took part of it")
        #expect(queue.send(small, to: pair.sender) == .blocked)
        let early = pair.drain(upTo: 5_000)
        #expect(queue.write(to: pair.sender) == .blocked)
        queue.dropUnstarted()
        #expect(queue.count > 0 && queue.count < big.count, "the rest of the big frame, and not the small one")
        let close = WebSocketFrame.close(code: 1008, reason: "slow reader").encoded()
        #expect(queue.send(close, to: pair.sender) == .blocked)
        var received = early
        while !queue.isEmpty {
            received += pair.drain()
            guard queue.write(to: pair.sender) != .failed else { throw StackError("the socket failed") }
        }
        received += pair.drain()
        #expect(received == big + close)
    }

    @Test func theRingIsGivenBackOnlyOnceDrained() throws {
        let pair = try Pair()
        var queue = OutboundQueue(room: 262_144)
        let frame = WebSocketFrame.encode(opcode: .text, payload: [UInt8](repeating: 0x63, count: 50_000))
        while queue.isEmpty {
            guard queue.send(frame, to: pair.sender) != .failed else { throw StackError("the socket failed") }
        }
        queue.release()
        let waiting = queue.isMapped
        #expect(waiting, "bytes still wait")
        while !queue.isEmpty {
            _ = pair.drain()
            guard queue.write(to: pair.sender) != .failed else { throw StackError("the socket failed") }
        }
        queue.release()
        let unmapped = !queue.isMapped
        #expect(unmapped)
        #expect(queue.send(frame, to: pair.sender) != .failed, "a later frame maps a new ring when it must wait")
    }
}

/// A connected pair of Unix stream sockets: `sender` non-blocking with a small send buffer, as the
/// loop's sockets are; `receiver` read without blocking.
private final class Pair {
    let sender: Int32
    let receiver: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw StackError("socketpair: \(errno)") }
        sender = fds[0]
        receiver = fds[1]
        var size: Int32 = 8_192
        setsockopt(sender, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(sender, F_SETFL, fcntl(sender, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(sender)
        close(receiver)
    }

    /// What the receiving side holds now, at most `limit` bytes.
    func drain(upTo limit: Int = .max) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let count = recv(receiver, &chunk, min(chunk.count, limit - bytes.count), Int32(MSG_DONTWAIT))
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}
