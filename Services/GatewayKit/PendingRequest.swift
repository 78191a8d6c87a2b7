import Foundation

/// A client request the broker has accepted and not yet answered.
struct PendingRequest {
    /// The client's ROUTER identity.
    let client: Data
    /// The service name the client addressed (`device` for routed commands); the reply carries it.
    let replyService: String
    /// The worker service that will serve it.
    let target: String
    /// The body frames handed to the worker.
    let body: [Data]
    /// The request's proof, which the gateway verified, handed to the worker after the body so the
    /// service knows who signed it and can refuse the proof a second time; nil when unsigned.
    var proof: VerifiedProof?
    let deadline: Int64
    /// Monotonic milliseconds when the request arrived (for the recording).
    let arrivedAt: Int64
    /// Set when this is one shard's part of an app-wide query.
    var part: Part?

    struct Part {
        let gather: UInt64
        let index: Int
    }
}
