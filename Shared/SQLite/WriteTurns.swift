import Dispatch
import Foundation
import Synchronization

/// Turns at writing one database file, taken first come first served by the connections of this
/// process (`Store.write` takes one around each transaction).
///
/// SQLite's own write lock is polled: a connection that finds it held sleeps in its busy handler
/// (0.1 ms, later 1 ms) and tries again, while the thread that holds it commits and begins its next
/// transaction at once, before a sleeper wakes. In push, three threads write one file (the events
/// thread and the fan-out's two halves): through a burst of fired local notifications the events
/// thread won the lock again and again, and the fan-out's answers waited hundreds of milliseconds
/// to be recorded while no core was busy with them. Here a waiting writer sleeps on its own
/// semaphore and the one before it hands it the turn as it finishes. Connections of other
/// processes are still kept out by SQLite's lock alone.
final class WriteTurns: Sendable {
    private final class Waiter: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
    }

    private struct Line {
        var busy = false
        var waiting: [Waiter] = []
    }

    private let line = Mutex(Line())

    private static let byFile = Mutex<[String: WriteTurns]>([:])

    /// The turns of the file at `path`, shared by every store of this process that opens it.
    static func forFile(_ path: String) -> WriteTurns {
        let key = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        return byFile.withLock { turns in
            if let known = turns[key] { return known }
            let made = WriteTurns()
            turns[key] = made
            return made
        }
    }

    /// Waits for the turn, `timeout` seconds at most. False when it did not come: the caller goes on
    /// without it, and SQLite's own lock decides (it waits, and fails with SQLITE_BUSY in the end, as
    /// a store did before there were turns), so a thread that somehow holds a turn and writes the
    /// same file through a second store does not wait for ever.
    func take(timeout: Double) -> Bool {
        let waiter: Waiter? = line.withLock { line in
            guard line.busy else {
                line.busy = true
                return nil
            }
            let waiter = Waiter()
            line.waiting.append(waiter)
            return waiter
        }
        guard let waiter else { return true }
        if waiter.semaphore.wait(timeout: .now() + timeout) == .success { return true }
        // Late: leave the line, unless the turn was handed over just now.
        let handed = line.withLock { line in
            guard let index = line.waiting.firstIndex(where: { $0 === waiter }) else { return true }
            line.waiting.remove(at: index)
            return false
        }
        if handed { waiter.semaphore.wait() }
        return handed
    }

    /// Ends a turn `take` gave: the next in line has it now.
    func give() {
        let next: Waiter? = line.withLock { line in
            guard !line.waiting.isEmpty else {
                line.busy = false
                return nil
            }
            return line.waiting.removeFirst()
        }
        next?.semaphore.signal()
    }
}
