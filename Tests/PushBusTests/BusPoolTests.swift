import Client
import Foundation
import Runtime
import Testing
import ZeroMQ

/// The bus-client pool against a real gateway: slots, lanes, and every completion called once.
@Suite("bus pool (integration)", .serialized)
struct BusPoolTests {
    /// Runs `pool` on this thread until every one of `expected` completions was called or `seconds` pass.
    static func pump(_ pool: BusPool, until done: () -> Bool, seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !done() && Date() < end {
            var poller = Poller(pool.sockets)
            _ = try? poller.poll(timeout: 20)
            pool.service(now: Clock.milliseconds())
        }
    }

    @Test func requestsBeyondTheSlotsAreAnsweredInTurn() throws {
        let stack = try TestStack().start(["registration"])
        let pool = try BusPool(endpoint: stack.endpoint, context: try Context(), signer: Signer(), serverKey: nil, slots: 2,
                               timeoutMilliseconds: 5000)
        var replies: [String?] = []
        for _ in 0..<10 {
            pool.submit(BusPool.Job(service: "mmi.service", body: [Data("registration".utf8)]) { reply in
                replies.append(reply.map { String(decoding: $0, as: UTF8.self) })
            })
        }
        Self.pump(pool, until: { replies.count == 10 }, seconds: 10)
        #expect(replies == Array(repeating: "200", count: 10))
    }

    /// The gateway stopped: a request waiting for a slot hears nil at its own deadline, counted from
    /// when it was submitted, not a timeout later for each wave of slots (five waves of two here).
    @Test func requestsWaitingForASlotHearNilAtTheirDeadline() throws {
        let stack = try TestStack().start(["registration"])
        let pool = try BusPool(endpoint: stack.endpoint, context: try Context(), signer: Signer(), serverKey: nil, slots: 2,
                               timeoutMilliseconds: 1000)
        let gateway = try #require(stack.gateway?.process.processIdentifier)
        kill(gateway, SIGSTOP)
        defer { kill(gateway, SIGCONT) }
        let started = Date()
        var answered: [(reply: Data?, after: Double)] = []
        for _ in 0..<10 {
            pool.submit(BusPool.Job(service: "mmi.service", body: [Data("registration".utf8)]) { reply in
                answered.append((reply, Date().timeIntervalSince(started)))
            })
        }
        Self.pump(pool, until: { answered.count == 10 }, seconds: 8)
        #expect(answered.count == 10 && answered.allSatisfy { $0.reply == nil })
        let last = answered.map(\.after).max() ?? .infinity
        #expect(last < 2.0, "the last waiting request heard nil after \(last) s")
    }
}
