/// The services behind the gateway: those that own device state, then the sending path (`push`
/// owns messages, `apns` is a stateless sender, `channel` holds devices' live connections and
/// their undelivered messages). Each runs as its own executable and MDP worker.
public enum Service: String, CaseIterable, Codable, Sendable {
    case registration, tagging, badge, scheduler, analytics, push, apns, channel

    /// The MDP service name workers announce and clients may address directly.
    public var name: String { rawValue }

    /// Keeps nothing, so it scales by running more workers of the one service (`--replicas`), never by shards.
    public var isStateless: Bool { self == .apns }
}
