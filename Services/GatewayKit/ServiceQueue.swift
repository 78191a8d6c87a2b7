import Foundation

/// One service at the broker: its requests waiting for a worker and its workers, in arrival order.
struct ServiceQueue {
    private var waiting: [UInt64] = []
    private var head = 0
    var workers: [Data] = []
    /// Where the next search for a worker with free credit starts, so load spreads round-robin.
    var nextWorker = 0

    var waitingCount: Int { waiting.count - head }

    mutating func enqueue(_ id: UInt64) { waiting.append(id) }

    mutating func dequeue() -> UInt64? {
        guard head < waiting.count else { return nil }
        let id = waiting[head]
        head += 1
        if head > 1024 && head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return id
    }

    mutating func pushBack(_ id: UInt64) {
        if head > 0 {
            head -= 1
            waiting[head] = id
        } else {
            waiting.insert(id, at: 0)
        }
    }
}
