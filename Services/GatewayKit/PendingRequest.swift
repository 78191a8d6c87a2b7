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
    let deadline: Int64
    /// Monotonic milliseconds when the request arrived (for the recording).
    let arrivedAt: Int64
}
