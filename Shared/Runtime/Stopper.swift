import Foundation
import Synchronization
import ZeroMQ

/// Asks a poll loop on another thread to stop, through an `inproc://` pipe rather than a lock.
/// The loop owns `makeReceiver()`'s socket and polls it; any thread may call `request()`.
public final class Stopper: Sendable {
    public let context: Context
    private let endpoint: String
    private let requested = Atomic<Bool>(false)

    public init(context: Context) {
        self.context = context
        endpoint = "inproc://stop-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// The loop's end of the pipe. Call on the loop's thread, before any `request()`.
    public func makeReceiver() throws(ZMQError) -> Socket {
        try Socket.pull(context, bind: endpoint)
    }

    /// Wakes the loop and tells it to stop. Safe to call twice and from any thread.
    public func request() {
        guard !requested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard let pipe = try? Socket.push(context, connect: endpoint) else { return }
        try? pipe.send(strings: ["stop"], wait: false)
        pipe.close()
    }

    public var isRequested: Bool { requested.load(ordering: .acquiring) }
}
