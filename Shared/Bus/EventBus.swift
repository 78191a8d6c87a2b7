/// Settings every event-bus socket shares (publishers, the gateway's proxy, subscribers).
public enum EventBus {
    /// Messages a bus socket queues before it drops (PUB/XPUB) or stops reading; ZeroMQ's own default
    /// of 1000 lost events in bursts, such as the `badge.changed` of a 1000-device push.
    public static let queueLimit: Int32 = 1_000_000
}
