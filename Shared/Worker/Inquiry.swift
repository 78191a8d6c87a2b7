import Client
import Foundation
import JSON
import Schema

/// A question a request must have answered by another service before it runs (push.send asks
/// tagging whether its audience has a device): the worker asks it over the bus while no transaction
/// is open and the worker goes on serving, then runs the request with the answer.
public struct Inquiry: Sendable {
    public let command: Command
    public let payload: Data

    public init<P: Encodable>(_ command: Command, _ payload: P) {
        self.command = command
        self.payload = WireCodec.encode(payload)
    }

    /// What came back: the reply frame, or nil when no answer came in time.
    public struct Answer: Sendable {
        public let command: Command
        public let reply: Data?

        public init(command: Command, reply: Data?) {
            self.command = command
            self.reply = reply
        }

        /// The reply's body as `R`, or the service's refusal; no answer in time is 6002.
        public func decode<R: Codable & Sendable>(_ type: R.Type) throws(CommandError) -> R {
            guard let reply else { throw CommandError(.timeout, "\(command.service.name) did not answer \(command.name) in time, retry") }
            return try ServiceCaller.decode(reply, of: command, as: type, timeoutMilliseconds: 0)
        }
    }
}
