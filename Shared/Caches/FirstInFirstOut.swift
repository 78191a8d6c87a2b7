/// A queue whose front is taken without moving the rest: an array and the index of its first
/// element, compacted once more than 1,024 and half of it are taken (an array's `removeFirst`
/// moves every element left, which made long queues quadratic). Serves the gateway's waiting
/// requests and deadlines and the channel's uplink lanes. Owned by one thread.
public struct FirstInFirstOut<Element> {
    @usableFromInline var items: [Element] = []
    @usableFromInline var head = 0

    @inlinable public init() {}

    @inlinable public var count: Int { items.count - head }
    @inlinable public var isEmpty: Bool { count == 0 }
    /// The element at the front, not taken.
    @inlinable public var first: Element? { head < items.count ? items[head] : nil }

    @inlinable public mutating func append(_ item: Element) { items.append(item) }

    /// The element at the front, taken.
    @inlinable public mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        compactIfWorthIt()
        return item
    }

    /// Up to `limit` elements from the front, in order.
    @inlinable public mutating func take(_ limit: Int) -> [Element] {
        let end = min(items.count, head + max(0, limit))
        let taken = Array(items[head..<end])
        head = end
        compactIfWorthIt()
        return taken
    }

    @inlinable mutating func compactIfWorthIt() {
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}
