import Foundation
import Runtime
import Synchronization
import Testing
@testable import Worker
import ZeroMQ

/// The one shape of a service's side work: prepared on its own thread, passes as often as each asks,
/// a failed pass tried again after a pause, and the process's stop reaching every loop.
@Suite("side loops")
struct SideLoopTests {
    final class Counting: SideLoop, @unchecked Sendable {
        let name = "pb-side-test"
        let passes = Atomic(0)
        let finished = Atomic(false)
        let preparedOn = Mutex<String?>(nil)
        let failFirst: Int

        init(failFirst: Int = 0) { self.failFirst = failFirst }

        func prepare(context: Context) throws {
            preparedOn.withLock { $0 = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) }
        }

        func pass(now: Double) throws -> Double {
            let count = passes.add(1, ordering: .relaxed).newValue
            if count <= failFirst { throw CountingError() }
            return 0.01
        }

        func finish() { finished.store(true, ordering: .relaxed) }
    }

    struct CountingError: Error {}

    @Test func aLoopIsPreparedOnItsOwnThreadPassesAndFinishesWhenStopped() throws {
        let loop = Counting()
        let loops = SideLoops()
        loops.add(loop)
        loops.start(context: try Context(), logger: Logger(label: "test", level: .critical))
        #expect(eventually(5, every: 10_000) { loop.passes.load(ordering: .relaxed) >= 10 })
        loops.stop()
        let finished = loop.finished.load(ordering: .relaxed)
        #expect(finished, "the stop did not reach the loop")
        #expect(loop.preparedOn.withLock { $0 } == "pb-side-test")
        let after = loop.passes.load(ordering: .relaxed)
        usleep(100_000)
        #expect(loop.passes.load(ordering: .relaxed) == after, "the loop kept passing after its stop")
    }

    @Test func aPassThatFailsIsTriedAgainAfterAPause() throws {
        let loop = Counting(failFirst: 1)
        let loops = SideLoops()
        loops.add(loop)
        let started = Date()
        loops.start(context: try Context(), logger: Logger(label: "test", level: .critical))
        defer { loops.stop() }
        #expect(eventually(5, every: 10_000) { loop.passes.load(ordering: .relaxed) >= 3 })
        #expect(Date().timeIntervalSince(started) >= 0.9, "a failed pass was tried again without the pause")
    }
}
