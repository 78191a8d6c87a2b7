import Foundation
import JSON
import Majordomo
import Schema
import ZeroMQ

/// A synchronous MDP/0.1 client over a DEALER socket: one request, one reply. After a timeout the
/// socket is replaced, so a late reply can never be taken for the next call's. Owned by one thread.
public final class MajordomoClient {
    public let endpoint: String
    public var timeoutMilliseconds: Int
    /// The gateway's CURVE public key when its endpoint requires encryption.
    public let serverKey: String?
    /// Signs every `[command, payload]` request sent to a service (not MMI) when set.
    public var signer: Signer?
    private let context: Context
    /// Readable when the reply to a request sent with `send` has come.
    public private(set) var socket: Socket
    /// The request sent and not yet answered: its service, and its command and payload for the signer.
    private var awaiting: (service: String, command: String?, payload: Data?)?

    public init(endpoint: String, context: Context, timeoutMilliseconds: Int = 10_000, serverKey: String? = nil) throws {
        self.endpoint = endpoint
        self.context = context
        self.timeoutMilliseconds = timeoutMilliseconds
        self.serverKey = serverKey
        socket = try Self.dial(endpoint, context, serverKey: serverKey)
    }

    deinit { socket.close() }

    /// Sends `body` to `service` and waits for its reply body; signs it when a signer is set.
    public func request(_ service: String, _ body: [Data]) throws -> [Data] {
        try send(service, body)
        var poller = Poller([socket])
        guard try poller.poll(timeout: timeoutMilliseconds).contains(socket), let reply = try receiveReply() else {
            try abandon()
            throw ClientError.timeout(milliseconds: timeoutMilliseconds)
        }
        return reply
    }

    /// Sends `body` to `service` without waiting (signed when a signer is set); `receiveReply` takes
    /// the answer once `socket` is readable. For a loop that polls other sockets meanwhile.
    /// `relayed`: the body is someone else's request (a device's, through the edge), sent exactly as
    /// given: never signed, and its reply teaches the signer nothing.
    public func send(_ service: String, _ body: [Data], relayed: Bool = false) throws {
        var body = body
        let command = body.first.map { String(decoding: $0, as: UTF8.self) }
        if !relayed, let signer, body.count == 2, !service.hasPrefix(MDP.mmiPrefix), let command {
            body = signer.sign(command: command, payload: body[1])
        }
        try socket.send(ClientMessage(service: service, body: body).frames)
        awaiting = relayed ? (service, nil, nil) : (service, command, body.count >= 2 ? body[1] : nil)
    }

    /// The reply body to the request sent, or nil when it has not come yet.
    public func receiveReply() throws -> [Data]? {
        guard let awaiting, let message = try socket.receive(wait: false) else { return nil }
        self.awaiting = nil
        let reply: ClientMessage
        do { reply = try ClientMessage(frames: message.frames[...]) } catch {
            throw ClientError.malformedReply(error.description)
        }
        guard reply.service == awaiting.service else { throw ClientError.malformedReply("reply for service \(reply.service)") }
        if let signer, let command = awaiting.command, let payload = awaiting.payload, let first = reply.body.first {
            signer.learn(command: command, payload: payload, reply: first)
        }
        return reply.body
    }

    /// Gives up on the request sent: the socket is replaced, so its late reply can never be taken
    /// for the next request's.
    public func abandon() throws {
        socket.close()
        socket = try Self.dial(endpoint, context, serverKey: serverKey)
        awaiting = nil
    }

    /// Sends a device command through the gateway's `device` routing and returns the reply JSON.
    public func call(_ command: String, payload: Data) throws -> Data {
        let body = try request(MDP.deviceService, [Data(command.utf8), payload])
        guard body.count == 1 else { throw ClientError.malformedReply("expected one JSON frame, got \(body.count)") }
        return body[0]
    }

    /// A typed device call: encodes `payload` (with `seq` when given) and decodes the reply.
    public func call<P: Codable & Sendable, R: Codable & Sendable>(_ command: Command, _ payload: P, seq: Int? = nil,
                                                                 as reply: R.Type) throws -> Reply<R> {
        let data = try call(command.name, payload: WireCodec.encode(Envelope(payload, seq: seq)))
        do { return try JSONTreeDecoder().decode(Reply<R>.self, from: data) } catch {
            throw ClientError.malformedReply("reply of \(command.name) does not decode: \(error)")
        }
    }

    /// MMI `mmi.service`: "200" when `service` has workers, "404" when not (RFC 8).
    public func serviceStatus(_ service: String) throws -> String {
        let body = try request("mmi.service", [Data(service.utf8)])
        return body.first.flatMap { String(data: $0, encoding: .utf8) } ?? ""
    }

    private static func dial(_ endpoint: String, _ context: Context, serverKey: String?) throws -> Socket {
        let socket = try Socket(context, .dealer)
        if let serverKey { try socket.makeCurveClient(serverKey: serverKey) }
        try socket.connect(endpoint)
        return socket
    }
}
