import Foundation
import Runtime
import Synchronization
import Testing
@testable import Worker
import ZeroMQ

/// A service's own threads (the push fan-out, the schedule firer, the channel's sweep) carry their
/// names where an operator looks for them: `top -H`, `perf`, `/proc/<pid>/task/*/comm`.
@Suite("thread names")
struct ThreadNameTests {
    @Test func aSideLoopsThreadIsNamedForTheKernel() throws {
        final class Idle: SideLoop {
            let name = "pb-named-test"
            func pass(now: Double) throws -> Double { 0.05 }
        }
        let loops = SideLoops()
        loops.add(Idle())
        loops.start(context: try Context(), logger: Logger(label: "test", level: .critical))
        defer { loops.stop() }
        #expect(eventually(5, every: 10_000) { aThreadIsNamed("pb-named-test") }, "no thread of this process is named pb-named-test")
    }
}
