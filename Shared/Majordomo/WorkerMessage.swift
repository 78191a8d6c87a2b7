import Foundation
import ZeroMQ

/// A message between a worker and the broker, without the routing frames in front of it.
/// On the wire: `["", "MDPW01", command, …]`.
public enum WorkerMessage: Equatable, Sendable {
    /// Worker → broker: serving `service`; `credit` is PushBus's extension frame (requests at once),
    /// and `credential` its two frames after the credit with which a worker proves it is one of
    /// PushBus's own (see `WorkerCredential`).
    case ready(service: String, credit: Int?, credential: [Data] = [])
    /// Broker → worker: `client` is an opaque return address the worker hands back unchanged.
    case request(client: Data, body: [Data])
    /// Worker → broker.
    case reply(client: Data, body: [Data])
    case heartbeat
    case disconnect

    enum Code: UInt8 {
        case ready = 1, request, reply, heartbeat, disconnect
    }

    /// Largest credit a worker may announce.
    public static let maxCredit = 10_000

    /// The frames to send from a DEALER (the leading empty frame included).
    public var frames: Message {
        var frames: [Data] = []
        frames.reserveCapacity(6)
        write(into: &frames)
        return Message(frames)
    }

    /// Appends the frames to send (the leading empty frame included) to `frames`, which may hold
    /// routing frames already: a loop that refills one list for every message allocates none.
    public func write(into frames: inout [Data]) {
        switch self {
        case .ready(let service, let credit, let credential):
            Self.writeHeader(.ready, into: &frames)
            frames.append(Data(service.utf8))
            if let credit {
                frames.append(Data(String(credit).utf8))
                frames += credential
            }
        case .request(let client, let body):
            Self.writeHeader(.request, client: client, into: &frames)
            frames += body
        case .reply(let client, let body):
            Self.writeHeader(.reply, client: client, into: &frames)
            frames += body
        case .heartbeat:
            Self.writeHeader(.heartbeat, into: &frames)
        case .disconnect:
            Self.writeHeader(.disconnect, into: &frames)
        }
    }

    /// Appends a one-frame reply, `.reply(client:body: [frame])`, without making its body list.
    public static func writeReply(client: Data, frame: Data, into frames: inout [Data]) {
        writeHeader(.reply, client: client, into: &frames)
        frames.append(frame)
    }

    /// `["", "MDPW01", command]`, then for a request or reply the client's address and an empty frame.
    private static func writeHeader(_ code: Code, client: Data? = nil, into frames: inout [Data]) {
        frames.append(Data())
        frames.append(MDP.worker)
        frames.append(Data(repeating: code.rawValue, count: 1))  // one byte: held inline, no allocation
        if let client {
            frames.append(client)
            frames.append(Data())
        }
    }

    /// Parses frames that start with the empty delimiter and the `MDPW01` header.
    public init(frames: ArraySlice<Data>) throws(MDPError) {
        var rest = frames
        guard let delimiter = rest.popFirst(), delimiter.isEmpty else { throw MDPError("no empty delimiter") }
        guard rest.popFirst() == MDP.worker else { throw MDPError("not an MDPW01 message") }
        guard let commandFrame = rest.popFirst(), commandFrame.count == 1,
              let code = Code(rawValue: commandFrame[commandFrame.startIndex]) else {
            throw MDPError("unknown worker command")
        }
        switch code {
        case .ready:
            guard let nameFrame = rest.popFirst(), !nameFrame.isEmpty, nameFrame.count <= MDP.maxServiceNameBytes,
                  let service = String(data: nameFrame, encoding: .utf8) else {
                throw MDPError("READY without a valid service name")
            }
            var credit: Int?
            if let creditFrame = rest.popFirst() {
                guard let text = String(data: creditFrame, encoding: .utf8), let value = Int(text),
                      (1...Self.maxCredit).contains(value) else {
                    throw MDPError("READY credit must be 1...\(Self.maxCredit)")
                }
                credit = value
            }
            guard rest.isEmpty || rest.count == 2 else { throw MDPError("READY has extra frames") }
            self = .ready(service: service, credit: credit, credential: Array(rest))
        case .request, .reply:
            guard let client = rest.popFirst(), !client.isEmpty else { throw MDPError("no client address") }
            guard let empty = rest.popFirst(), empty.isEmpty else { throw MDPError("no empty frame after address") }
            self = code == .request ? .request(client: client, body: Array(rest)) : .reply(client: client, body: Array(rest))
        case .heartbeat:
            self = .heartbeat
        case .disconnect:
            self = .disconnect
        }
    }
}
