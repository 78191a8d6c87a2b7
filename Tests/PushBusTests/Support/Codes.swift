import Foundation

/// Reply codes gathered from several threads.
final class Codes: @unchecked Sendable {
    private let lock = NSLock()
    private var codes: [Int] = []
    func add(_ code: Int) { lock.withLock { codes.append(code) } }
    var all: [Int] { lock.withLock { codes.sorted() } }
}
