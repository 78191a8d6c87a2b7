import Client
import Credentials
import Foundation
import JSON
import Majordomo
import Schema
import ZeroMQ

/// Sends device commands through the gateway with many in flight on one DEALER socket.
struct Pipeline {
    let socket: Socket
    /// Signs each request as its device, with the deployment's secrets.
    let signer: Signer

    init(context: Context, endpoint: String, secrets: Secrets) throws {
        signer = Signer(secrets: secrets)
        socket = try Socket(context, .dealer)
        try socket.setHighWaterMarks(send: 0, receive: 0)
        try socket.connect(endpoint)
    }

    /// Sends every request, at most `window` unanswered at once; returns the replies' codes.
    func send(_ requests: [(command: String, payload: Data)], window: Int = 1000, timeout: Double = 120) throws -> [Int] {
        var codes: [Int] = []
        codes.reserveCapacity(requests.count)
        var next = 0
        var poller = Poller([socket])
        let deadline = Date().addingTimeInterval(timeout)
        while codes.count < requests.count {
            while next < requests.count && next - codes.count < window {
                let request = requests[next]
                try socket.send(ClientMessage(service: "device", body: signer.sign(command: request.command, payload: request.payload)).frames)
                next += 1
            }
            guard Date() < deadline else { throw BenchError("replies stopped after \(codes.count) of \(requests.count)") }
            guard try poller.poll(timeout: 100).contains(socket) else { continue }
            while let message = try socket.receive(wait: false) {
                let reply = try ClientMessage(frames: message.frames[...])
                let json = try JSONTreeDecoder().decode(JSONValue.self, from: reply.body.first ?? Data())
                codes.append(Int(json["code"]?.number ?? -1))
            }
        }
        return codes
    }
}
