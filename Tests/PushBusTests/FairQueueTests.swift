import Testing
@testable import HTTP2Client

/// The per-lane round-robin queue the client hands free streams out from.
@Suite("Fair queue")
struct FairQueueTests {
    @Test("lanes take turns, whatever each holds")
    func roundRobin() {
        var queue = FairQueue<String>()
        for n in 0..<1000 { queue.append("a\(n)", lane: "a") }
        queue.append("b0", lane: "b")
        queue.append("c0", lane: "c")
        var taken: [String] = []
        for _ in 0..<6 { taken.append(queue.popNext()!) }
        #expect(taken == ["a0", "b0", "c0", "a1", "a2", "a3"])
        #expect(queue.count == 996)
    }

    @Test("a lane that arrives while another is served waits one round at most")
    func lateLane() {
        var queue = FairQueue<String>()
        for n in 0..<100 { queue.append("a\(n)", lane: "a") }
        _ = queue.popNext()
        _ = queue.popNext()
        queue.append("b0", lane: "b")
        #expect(Array((0..<2).map { _ in queue.popNext()! }).contains("b0"))
    }

    @Test("a retry goes back at the head of its lane; due items come off the heads")
    func prependAndExpire() {
        var queue = FairQueue<Int>()
        for n in 1...5 { queue.append(n, lane: "a") }
        queue.prepend(0, lane: "a")
        #expect(queue.popNext() == 0)
        #expect(queue.removeDue { $0 <= 2 } == [1, 2])
        #expect(queue.count == 3)
        #expect(queue.removeAll() == [3, 4, 5])
        #expect(queue.isEmpty && queue.popNext() == nil)
    }
}
