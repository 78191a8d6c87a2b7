import Foundation

/// Reply codes gathered from several threads.
final class Codes: @unchecked Sendable {
    private let lock = NSLock()
    private var codes: [Int] = []
    func add(_ code: Int) { lock.withLock { codes.append(code) } }
    var all: [Int] { lock.withLock { codes.sorted() } }
}

/// Runs `body(client)` for each of `clients` clients at once, each on a thread of its own (not
/// concurrentPerform, which runs only as many at once as there are cores), and returns once every
/// one has; a client whose body throws adds -2 to `codes`.
func atOnce(_ clients: Int, into codes: Codes, _ body: @escaping @Sendable (Int) throws -> Void) {
    let finished = DispatchGroup()
    for client in 0..<clients {
        finished.enter()
        Thread {
            defer { finished.leave() }
            do { try body(client) } catch { codes.add(-2) }
        }.start()
    }
    finished.wait()
}
