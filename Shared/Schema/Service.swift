/// The services that own device state. Each runs as its own executable and MDP worker.
public enum Service: String, CaseIterable, Codable, Sendable {
    case registration, tagging, badge, scheduler, analytics

    /// The MDP service name workers announce and clients may address directly.
    public var name: String { rawValue }

    /// The key a sharded deployment hashes to pick this service's shard.
    public var shardKey: String { self == .analytics ? "euid" : "registration_id" }
}
