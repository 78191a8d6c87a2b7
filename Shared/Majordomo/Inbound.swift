import Foundation
import ZeroMQ

/// What a broker's ROUTER socket received, sorted by sender kind.
public enum Inbound: Equatable, Sendable {
    case client(sender: Data, ClientMessage)
    case worker(sender: Data, WorkerMessage)

    /// Sorts a ROUTER message `[sender, "", header, …]`. Throws `Malformed` with as much of the
    /// sender as was readable, so the broker can still answer a client it can address.
    public init(_ message: Message) throws(Malformed) {
        guard let sender = message.frames.first, !sender.isEmpty else {
            throw Malformed(sender: nil, header: nil, error: MDPError("no sender"))
        }
        let rest = message.frames.dropFirst()
        guard rest.count >= 2, rest[rest.startIndex].isEmpty else {
            throw Malformed(sender: sender, header: nil, error: MDPError("no empty delimiter"))
        }
        let header = rest[rest.startIndex + 1]
        do {
            if header == MDP.worker {
                self = .worker(sender: sender, try WorkerMessage(frames: rest))
            } else {
                self = .client(sender: sender, try ClientMessage(frames: rest))
            }
        } catch {
            throw Malformed(sender: sender, header: header, error: error)
        }
    }

    /// A ROUTER message that is not valid MDP.
    public struct Malformed: Error, Sendable {
        public let sender: Data?
        public let header: Data?
        public let error: MDPError

        /// A client that sent `[sender, "", header, …]` with a non-worker header can read an MDPC01 reply.
        public var isAddressableClient: Bool { sender != nil && header != nil && header != MDP.worker }
        public var isWorker: Bool { header == MDP.worker }
    }
}
