/// A queue whose front is taken without moving the rest: an array and the index of its first
/// element, compacted once half of it is taken (an array's `removeFirst` moves every element left,
/// which made a long queue of reports quadratic).
struct FirstInFirstOut<Element> {
    private var items: [Element] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ item: Element) { items.append(item) }

    /// Up to `limit` elements from the front, in order.
    mutating func take(_ limit: Int) -> [Element] {
        let end = min(items.count, head + max(0, limit))
        let taken = Array(items[head..<end])
        head = end
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return taken
    }
}
