import Foundation
import ZeroMQ

/// A client request or a broker reply, without routing frames: `["", "MDPC01", service, body…]`.
public struct ClientMessage: Equatable, Sendable {
    public var service: String
    public var body: [Data]

    public init(service: String, body: [Data]) {
        self.service = service
        self.body = body
    }

    public init(service: String, strings: [String]) {
        self.init(service: service, body: strings.map { Data($0.utf8) })
    }

    /// The frames to send from a DEALER (the leading empty frame included).
    public var frames: Message {
        var frames: [Data] = []
        frames.reserveCapacity(3 + body.count)
        write(into: &frames)
        return Message(frames)
    }

    /// Appends the frames to send (the leading empty frame included) to `frames`, which may hold
    /// routing frames already: a loop that refills one list for every message allocates none.
    public func write(into frames: inout [Data]) {
        frames.append(Data())
        frames.append(MDP.client)
        frames.append(Data(service.utf8))
        frames += body
    }

    /// Parses frames that start with the empty delimiter and the `MDPC01` header.
    public init(frames: ArraySlice<Data>) throws(MDPError) {
        var rest = frames
        guard let delimiter = rest.popFirst(), delimiter.isEmpty else { throw MDPError("no empty delimiter") }
        guard rest.popFirst() == MDP.client else { throw MDPError("not an MDPC01 message") }
        guard let nameFrame = rest.popFirst() else { throw MDPError("no service frame") }
        guard !nameFrame.isEmpty, nameFrame.count <= MDP.maxServiceNameBytes,
              let service = String(validating: nameFrame, as: UTF8.self) else {
            throw MDPError("service name must be 1...\(MDP.maxServiceNameBytes) bytes of UTF-8")
        }
        self.service = service
        self.body = Array(rest)
    }
}
