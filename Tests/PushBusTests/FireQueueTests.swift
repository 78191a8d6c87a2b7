import Testing
@testable import SchedulerKit

@Suite("fire queue")
struct FireQueueTests {
    @Test func popsDueEntriesEarliestFirst() {
        var generator = SystemRandomNumberGenerator()
        let dues = (0..<2_000).map { _ in Double(Int.random(in: 0..<500, using: &generator)) }
        var built = FireQueue(dues.enumerated().map { FireQueue.Entry(due: $0.element, id: Int64($0.offset)) })
        var pushed = FireQueue()
        for (offset, due) in dues.enumerated() { pushed.push(FireQueue.Entry(due: due, id: Int64(offset))) }
        for queue in [built, pushed] {
            var queue = queue
            var popped: [Double] = []
            while let entry = queue.popDue(at: 250) { popped.append(entry.due) }
            #expect(popped == dues.filter { $0 <= 250 }.sorted())
            #expect(queue.first.map { $0.due > 250 } ?? true, "nothing later than now comes out")
            #expect(queue.count == dues.filter { $0 > 250 }.count)
        }
        built.push(FireQueue.Entry(due: -1, id: 99_999))
        #expect(built.first == FireQueue.Entry(due: -1, id: 99_999))
    }

    @Test func anEmptyQueueHasNothingDue() {
        var queue = FireQueue([])
        #expect(queue.isEmpty)
        #expect(queue.popDue(at: .infinity) == nil)
    }
}
