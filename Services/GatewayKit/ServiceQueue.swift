import Foundation

/// One service at the broker: its requests waiting for a worker and its workers, in arrival order.
/// A class, like `WorkerRecord`: the broker changes it on every request, and through a dictionary a
/// struct is changed by a `modify` access that allocated twice a request (dhat).
final class ServiceQueue {
    private var waiting: [UInt64] = []
    private var head = 0
    var workers: [Data] = []
    /// Where the next search for a worker with free credit starts, so load spreads round-robin.
    var nextWorker = 0

    var waitingCount: Int { waiting.count - head }

    func enqueue(_ id: UInt64) { waiting.append(id) }

    func dequeue() -> UInt64? {
        guard head < waiting.count else { return nil }
        let id = waiting[head]
        head += 1
        if head > 1024 && head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return id
    }

    /// Drops requests at the head that were answered already (their deadline passed while waiting).
    /// Deadlines and the queue are both in arrival order, so answered ones are always at the head.
    func dropAnswered(isPending: (UInt64) -> Bool) {
        while head < waiting.count, !isPending(waiting[head]) { _ = dequeue() }
    }
}
