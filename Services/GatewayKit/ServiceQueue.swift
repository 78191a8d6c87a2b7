import Caches
import Foundation

/// One service at the broker: its requests waiting for a worker and its workers, in arrival order.
/// A class, like `WorkerRecord`: the broker changes it on every request, and through a dictionary a
/// struct is changed by a `modify` access that allocated twice a request (dhat).
final class ServiceQueue {
    private var waiting = FirstInFirstOut<UInt64>()
    var workers: [Data] = []
    /// Where the next search for a worker with free credit starts, so load spreads round-robin.
    var nextWorker = 0

    var waitingCount: Int { waiting.count }

    func enqueue(_ id: UInt64) { waiting.append(id) }

    func dequeue() -> UInt64? { waiting.popFirst() }

    /// Drops requests at the head that were answered already (their deadline passed while waiting).
    /// Deadlines and the queue are both in arrival order, so answered ones are always at the head.
    func dropAnswered(isPending: (UInt64) -> Bool) {
        while let id = waiting.first, !isPending(id) { _ = waiting.popFirst() }
    }
}
