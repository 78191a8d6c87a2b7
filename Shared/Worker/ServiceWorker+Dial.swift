import Bus
import Credentials
import Events
import Foundation
import Majordomo
import Runtime
import SQLite
import Schema
import ZeroMQ

extension ServiceWorker {
    /// Connects to the gateway and says READY, with the credential that proves this is our service
    /// signed over the challenge the gateway gives this very connection (`mmi.challenge`). Tries
    /// again, a pause between attempts, until a gateway answers; nil when asked to stop meanwhile.
    func dial(_ secrets: Secrets, stop: Socket) throws -> Socket? {
        while !stopper.isRequested {
            let socket = try Socket(stopper.context, .dealer)
            if let key = options.curveServerKey { try socket.makeCurveClient(serverKey: key) }
            try socket.connect(options.endpoint)
            try socket.send(ClientMessage(service: MDP.challengeService, body: [Data()]).frames)
            var poller = Poller([socket, stop])
            let ready = try poller.poll(timeout: options.heartbeatMilliseconds * options.liveness)
            if ready.contains(stop) {
                socket.close()
                return nil
            }
            if ready.contains(socket), let challenge = try Self.challenge(in: socket.receive(wait: false)) {
                let credential = WorkerCredential(service: service, credit: options.credit, challenge: challenge, secrets: secrets)
                try socket.send(WorkerMessage.ready(service: service, credit: options.credit,
                                                    credential: [credential.stamp, credential.proof]).frames)
                logger.info("worker connected", ["service": service, "endpoint": options.endpoint, "credit": options.credit])
                return socket
            }
            socket.close()
            logger.notice("no answer from the gateway, trying again", ["endpoint": options.endpoint])
            var pause = Poller([stop])
            if try pause.poll(timeout: options.reconnectMilliseconds).contains(stop) { return nil }
        }
        return nil
    }

    /// The challenge in the gateway's answer to `mmi.challenge`, if `message` is that answer.
    static func challenge(in message: Message?) -> String? {
        guard let message, let reply = try? ClientMessage(frames: message.frames[...]), reply.service == MDP.challengeService,
              let first = reply.body.first, !first.isEmpty else { return nil }
        return String(decoding: first, as: UTF8.self)
    }
}
