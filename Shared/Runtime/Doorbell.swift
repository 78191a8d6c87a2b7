import ZeroMQ

/// Wakes a poll loop on another thread when there is work for it, through an `inproc://` pipe
/// rather than a lock: the loop polls `makeReceiver()`'s socket and drains it when it wakes; the
/// ringing thread sends on `makeRinger()`'s. Rings that come while the loop is busy fold into one
/// (a ring never blocks: past the pipe's high-water mark the loop has a ring waiting anyway).
public final class Doorbell: Sendable {
    public let context: Context
    private let endpoint: String

    public init(context: Context) {
        self.context = context
        endpoint = "inproc://doorbell-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// The loop's end. Call on the loop's thread.
    public func makeReceiver() throws(ZMQError) -> Socket { try Socket.pull(context, bind: endpoint) }

    /// The ringing end. Call on the ringing thread; the loop may bind its end before or after.
    public func makeRinger() throws(ZMQError) -> Socket { try Socket.push(context, connect: endpoint) }

    public static func ring(_ ringer: Socket) { try? ringer.send(strings: ["ring"], wait: false) }

    /// Takes every ring waiting, so the next poll waits for a new one.
    public static func drain(_ receiver: Socket) { while (try? receiver.receive(wait: false)).flatMap({ $0 }) != nil {} }
}
