import Synchronization

/// The counters, written by the loop and read by anyone.
final class CounterBox: Sendable {
    private let value = Mutex(HTTP2Counters())

    func update(_ change: (inout HTTP2Counters) -> Void) { value.withLock { change(&$0) } }

    var current: HTTP2Counters { value.withLock { $0 } }
}
