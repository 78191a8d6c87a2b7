import Threads

/// What other threads hand the client's loop through its `Inbox`: requests to send, a name lookup's
/// answer, the stop. Callers of `HTTP2Client` post; only the loop takes.
enum LoopCommand: Sendable {
    case send(Submission)
    /// A name lookup's answer for the origin keyed `key` (`Resolver`).
    case resolved(key: String, answer: Resolver.Answer)
    case stop
}
