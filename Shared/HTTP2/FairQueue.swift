/// Waiting work kept per lane (an app, say) and handed out round-robin across the lanes that have
/// some, so a lane with 100,000 waiting delays another lane's one item by at most one round.
struct FairQueue<Element> {
    private final class Lane {
        let name: String
        var items = Ring<Element>()
        init(name: String) { self.name = name }
    }

    private var lanes: [String: Lane] = [:]
    /// The lanes with items, in turn order; `turn` is the next to give.
    private var order: [Lane] = []
    private var turn = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element, lane: String) {
        self.lane(lane).items.append(element)
        count += 1
    }

    /// Back at the head of its lane: work that was taken and must go again keeps its place.
    mutating func prepend(_ element: Element, lane: String) {
        self.lane(lane).items.prepend(element)
        count += 1
    }

    /// The head of the lane whose turn it is; the turn passes to the next lane.
    mutating func popNext() -> Element? {
        guard !order.isEmpty else { return nil }
        if turn >= order.count { turn = 0 }
        let lane = order[turn]
        let element = lane.items.popFirst()
        count -= 1
        if lane.items.isEmpty {
            order.remove(at: turn)
            lanes[lane.name] = nil
        } else {
            turn += 1
        }
        return element
    }

    /// Takes out, from the head of each lane, the items `isDue` says are due (deadlines rise along a lane).
    mutating func removeDue(_ isDue: (Element) -> Bool) -> [Element] {
        var due: [Element] = []
        for lane in order {
            while let head = lane.items.first, isDue(head) {
                _ = lane.items.popFirst()
                due.append(head)
            }
        }
        guard !due.isEmpty else { return due }
        count -= due.count
        let emptied = order.enumerated().filter { $0.element.items.isEmpty }.map(\.offset)
        for index in emptied.reversed() {
            lanes[order[index].name] = nil
            order.remove(at: index)
            if index < turn { turn -= 1 }
        }
        return due
    }

    /// Everything left, lane by lane.
    mutating func removeAll() -> [Element] {
        var all: [Element] = []
        for lane in order { while let item = lane.items.popFirst() { all.append(item) } }
        lanes = [:]
        order = []
        count = 0
        return all
    }

    private mutating func lane(_ name: String) -> Lane {
        if let lane = lanes[name] { return lane }
        let lane = Lane(name: name)
        lanes[name] = lane
        order.append(lane)
        return lane
    }
}
