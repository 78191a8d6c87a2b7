import Foundation

/// Constants of Majordomo MDP/0.1 (ZeroMQ RFC 7).
public enum MDP {
    /// Protocol header of client messages.
    public static let client = Data("MDPC01".utf8)
    /// Protocol header of worker messages.
    public static let worker = Data("MDPW01".utf8)
    /// The prefix of the broker's own services (RFC 8).
    public static let mmiPrefix = "mmi."
    /// PushBus's MMI service that hands a connecting worker the challenge to sign into its READY.
    public static let challengeService = "mmi.challenge"
    /// The gateway's virtual service a device command goes to: it routes the command to the service
    /// that owns it (`Broker.deviceService`).
    public static let deviceService = "device"
    /// Longest service name accepted.
    public static let maxServiceNameBytes = 255
}

/// A frame sequence that is not valid MDP/0.1.
public struct MDPError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "malformed MDP message: \(reason)" }
}
