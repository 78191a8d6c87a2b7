import Foundation
import SQLite
import Schema
import Testing
@testable import Bus
@testable import Runtime
@testable import Worker

@Suite("events applied a batch at a time (integration)")
struct EventBatchTests {
    /// The events queued on the bus are applied in one transaction without a savepoint each; an event
    /// that fails after it wrote sends the batch round again with savepoints, so its row is undone and
    /// every other event of the batch is kept.
    @Test func anEventThatFailsAfterWritingIsUndoneAloneAndItsBatchRunsAgain() throws {
        let stack = try TestStack().start()
        let client = try stack.client()
        let handler = try RecorderHandler(path: "\(stack.dataDirectory)/half-failing.sqlite", refusing: { $0 % 2 == 0 })
        nonisolated(unsafe) let worker = ServiceWorker(service: "half-failing", options: stack.workerOptions(), handler: handler,
                                                       context: stack.context, logger: Logger(label: "half-failing", level: .critical))
        let finished = DispatchSemaphore(value: 0)
        Thread { try? worker.run(); finished.signal() }.start()
        try stack.waitForService("half-failing")

        for _ in 0..<40 { _ = try client.register() }
        _ = try eventually(20, every: 50_000) { try handler.applied().count >= 20 }
        usleep(300_000)   // nothing more should come
        worker.stopper.request()
        finished.wait()

        #expect(try handler.applied() == Array(stride(from: 1, through: 39, by: 2)),
                "the odd events kept, the even ones undone")
        #expect(handler.storage.store.batchesRunAgain >= 1, "a failed event sent its batch round again")
    }
}
