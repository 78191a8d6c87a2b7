import Client
import Credentials
import Foundation
import JSON
import Majordomo
import Schema
import ZeroMQ

/// Sends hostile traffic to a gateway and checks that every message a client can be answered for
/// gets an error reply. `run()` blocks; it owns its sockets.
public final class WireFuzzer {
    public struct Result: Codable, Sendable {
        public var sent: Int
        public var addressable: Int
        public var replies: Int
        /// Result code → replies that carried it.
        public var codes: [String: Int]
        public var seconds: Double
    }

    private let endpoint: String
    private let messages: Int
    private var mutator: MessageMutator
    private let window: Int
    /// Signs the mutated payloads that are still JSON objects, so they get past the gateway's proof
    /// check and reach the services' decoders.
    private let signer: Signer?

    public init(endpoint: String, messages: Int, seed: UInt64, registrationIDs: [String] = [], window: Int = 256,
                secrets: Secrets? = nil) {
        self.endpoint = endpoint
        signer = secrets.map { Signer(secrets: $0) }
        self.messages = messages
        self.window = window
        mutator = MessageMutator(seed: seed, registrationIDs: registrationIDs)
    }

    /// Sends everything, then waits up to `drainMilliseconds` for the last replies.
    public func run(drainMilliseconds: Int = 15_000) throws -> Result {
        let context = try Context()
        let socket = try Socket(context, .dealer)
        try socket.setHighWaterMarks(send: 0, receive: 0)
        try socket.connect(endpoint)
        defer { socket.close() }
        var poller = Poller([socket])
        var sent = 0, addressable = 0, replies = 0
        var codes: [String: Int] = [:]
        let start = Date()

        func drain(_ timeout: Int) throws -> Bool {
            guard try poller.poll(timeout: timeout).contains(socket) else { return false }
            while let message = try socket.receive(wait: false) {
                // Only client replies count; a READY among the garbage may make the gateway heartbeat us.
                guard message.count >= 2, message[1] == MDP.client else { continue }
                replies += 1
                let code = message.frames.last.flatMap { try? JSONTreeDecoder().decode(JSONValue.self, from: $0) }?["code"]?.number
                codes[code.map { String(Int($0)) } ?? "none", default: 0] += 1
            }
            return true
        }

        while sent < messages {
            var shot = mutator.next()
            if let signer, shot.message.count == 5, shot.message[1] == MDP.client {
                let command = String(decoding: shot.message[3], as: UTF8.self)
                shot = .init(message: Message(Array(shot.message.frames.prefix(3)) + signer.sign(command: command, payload: shot.message[4])))
            }
            // The first frame of a DEALER's message is the empty delimiter; random frames go as they are.
            try socket.send(shot.message)
            sent += 1
            if shot.addressable { addressable += 1 }
            while addressable - replies >= window { _ = try drain(1000) }
            if sent % 64 == 0 { _ = try drain(0) }
        }
        let deadline = Date().addingTimeInterval(Double(drainMilliseconds) / 1000)
        while replies < addressable && Date() < deadline { _ = try drain(200) }
        return Result(sent: sent, addressable: addressable, replies: replies, codes: codes,
                      seconds: Date().timeIntervalSince(start))
    }
}
