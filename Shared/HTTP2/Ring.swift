/// A double-ended queue on a ring buffer: retries go back at the front, new work at the end.
struct Ring<Element> {
    private var slots: [Element?] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var first: Element? { count == 0 ? nil : slots[head] }

    mutating func append(_ element: Element) {
        grow()
        slots[(head + count) % slots.count] = element
        count += 1
    }

    mutating func prepend(_ element: Element) {
        grow()
        head = (head - 1 + slots.count) % slots.count
        slots[head] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    private mutating func grow() {
        guard count == slots.count else { return }
        var larger = [Element?](repeating: nil, count: max(16, slots.count * 2))
        for offset in 0..<count { larger[offset] = slots[(head + offset) % slots.count] }
        slots = larger
        head = 0
    }
}
