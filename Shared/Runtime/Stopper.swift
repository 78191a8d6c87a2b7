import Foundation
import Synchronization
import ZeroMQ

/// Asks a poll loop on another thread to stop, through a `Doorbell` rather than a lock.
/// The loop owns `makeReceiver()`'s socket and polls it; any thread may call `request()`.
public final class Stopper: Sendable {
    private let doorbell: Doorbell
    private let requested = Atomic<Bool>(false)

    public init(context: Context) { doorbell = Doorbell(context: context) }

    public var context: Context { doorbell.context }

    /// The loop's end of the pipe. Call on the loop's thread, before any `request()`.
    public func makeReceiver() throws(ZMQError) -> Socket { try doorbell.makeReceiver() }

    /// Wakes the loop and tells it to stop. Safe to call twice and from any thread.
    public func request() {
        guard !requested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard let ringer = try? doorbell.makeRinger() else { return }
        Doorbell.ring(ringer)
        ringer.close()
    }

    public var isRequested: Bool { requested.load(ordering: .acquiring) }
}
