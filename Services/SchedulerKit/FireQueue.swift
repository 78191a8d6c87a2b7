/// The timer of the scheduler: a binary min-heap of (fire time, pending row id), earliest first.
/// Entries are never removed in place: an update pushes a new entry and a removal pushes none, so
/// the entry left behind is stale and the caller checks each popped entry against the database.
/// That keeps the queue right even when a transaction that changed a row rolls back.
struct FireQueue {
    struct Entry: Equatable {
        let due: Double
        let id: Int64
    }

    private var heap: [Entry] = []

    init() {}

    /// Builds the heap from unordered entries in linear time.
    init(_ entries: [Entry]) {
        heap = entries
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    var count: Int { heap.count }
    var isEmpty: Bool { heap.isEmpty }
    /// The earliest entry, without removing it.
    var first: Entry? { heap.first }

    mutating func push(_ entry: Entry) {
        heap.append(entry)
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest entry if it is due at or before `now`.
    mutating func popDue(at now: Double) -> Entry? {
        guard let top = heap.first, top.due <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return top
    }

    private static func earlier(_ a: Entry, _ b: Entry) -> Bool {
        a.due < b.due || (a.due == b.due && a.id < b.id)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.earlier(entry, heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let entry = heap[parent]
        let count = heap.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count && Self.earlier(heap[child + 1], heap[child]) { child += 1 }
            guard Self.earlier(heap[child], entry) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = entry
    }
}
