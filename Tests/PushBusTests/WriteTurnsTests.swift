import Foundation
import Synchronization
@testable import SQLite
import Testing

/// The writers of one file in one process take turns, first come first served (`WriteTurns`), so a
/// thread that writes back to back does not keep the others out (push's events thread and its
/// fan-out, through a burst).
@Suite struct WriteTurnsTests {
    @Test("the turn goes to the writers in the order they asked")
    func firstComeFirstServed() throws {
        let turns = WriteTurns()
        #expect(turns.take(timeout: 1))
        let order = Mutex<[Int]>([])
        var threads: [Thread] = []
        for n in 1...3 {
            let thread = Thread {
                #expect(turns.take(timeout: 5))
                order.withLock { $0.append(n) }
                turns.give()
            }
            thread.start()
            threads.append(thread)
            Thread.sleep(forTimeInterval: 0.05)   // each in line before the next asks
        }
        turns.give()
        let deadline = Date().addingTimeInterval(5)
        while order.withLock({ $0.count }) < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(order.withLock { $0 } == [1, 2, 3])
    }

    @Test("a writer whose turn does not come leaves the line, and the next one is not held up by it")
    func aLateWriterLeavesTheLine() {
        let turns = WriteTurns()
        #expect(turns.take(timeout: 1))
        #expect(!turns.take(timeout: 0.05), "held elsewhere: no turn within the timeout")
        turns.give()
        #expect(turns.take(timeout: 0), "free again at once: the writer that gave up is not in line")
        turns.give()
    }

    @Test("one file is one line, however its path is spelled")
    func oneLinePerFile() throws {
        let directory = TestPaths.temporaryDirectory("write-turns-path")
        #expect(WriteTurns.forFile(directory + "/db.sqlite") === WriteTurns.forFile(directory + "/./x/../db.sqlite"))
        #expect(WriteTurns.forFile(directory + "/db.sqlite") !== WriteTurns.forFile(directory + "/other.sqlite"))
    }

    @Test("a store that asks to write waits for the transaction under way, not for the busy thread's next ones")
    func aBusyWriterDoesNotCutInLine() throws {
        let path = TestPaths.temporaryDirectory("write-turns") + "/db.sqlite"
        let migrations = [Migration("t-1", "CREATE TABLE rows (id INTEGER PRIMARY KEY, writer TEXT NOT NULL)")]
        _ = try Store(path: path, migrations: migrations)
        let committed = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let busy = Thread {
            let store = try! Store(path: path, migrations: migrations, durable: false)
            // Back to back, each transaction a few milliseconds long, until told to stop.
            while !stop.load(ordering: .sequentiallyConsistent) {
                try! store.write { db in for _ in 0..<300 { try db.run("INSERT INTO rows (writer) VALUES ('busy')") } }
                committed.add(1, ordering: .sequentiallyConsistent)
            }
        }
        busy.start()
        defer { stop.store(true, ordering: .sequentiallyConsistent) }
        Thread.sleep(forTimeInterval: 0.1)
        let store = try Store(path: path, migrations: migrations, durable: false)
        var overtaken: [Int] = []
        for _ in 0..<30 {
            let asked = committed.load(ordering: .sequentiallyConsistent)
            let got = try store.write { db in
                try db.run("INSERT INTO rows (writer) VALUES ('other')")
                return committed.load(ordering: .sequentiallyConsistent)
            }
            overtaken.append(got - asked)
        }
        // The busy thread's transaction under way when the store asked may end first; no other one.
        #expect(overtaken.allSatisfy { $0 <= 1 }, "busy transactions committed while the store waited: \(overtaken)")
    }
}
