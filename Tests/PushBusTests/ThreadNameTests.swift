import Foundation
import Runtime
import Testing

/// A service's own threads (the push fan-out, the schedule firer, the channel's uplink and sweep)
/// carry their names where an operator looks for them: `top -H`, `perf`, `/proc/<pid>/task/*/comm`.
@Suite("thread names")
struct ThreadNameTests {
    @Test func aBackgroundThreadIsNamedForTheKernel() {
        let release = DispatchSemaphore(value: 0)
        BackgroundThread.start("pb-named-test", logger: Logger(label: "test", level: .critical)) { release.wait() }
        defer { release.signal() }
        #expect(eventually(5, every: 10_000) { aThreadIsNamed("pb-named-test") }, "no thread of this process is named pb-named-test")
    }
}
