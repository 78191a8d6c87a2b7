import Bus
import Credentials
import Foundation
import Majordomo
import Runtime
import ZeroMQ

/// A worker's connection to the gateway: dialled with READY and the credential that proves the
/// service, signed over the challenge the gateway gives this very connection (`mmi.challenge`);
/// heartbeats both ways; and a redial, after a pause, of a gateway that went quiet. Owned by the
/// worker's thread, which polls `socket`.
final class GatewayLink {
    private let service: String
    private let options: WorkerOptions
    private let secrets: Secrets
    private let stopper: Stopper
    private let stop: Socket
    private let logger: Logger
    private(set) var socket: Socket
    private var lastReceived: Int64
    private var lastSent: Int64
    private var heartbeat: Int64 { Int64(options.heartbeatMilliseconds) }

    /// Dials until a gateway answers; nil when the stop came first.
    static func dial(service: String, options: WorkerOptions, secrets: Secrets, stopper: Stopper, stop: Socket,
                     logger: Logger) throws -> GatewayLink? {
        guard let socket = try connect(service, options, secrets, stopper, stop, logger) else { return nil }
        return GatewayLink(service, options, secrets, stopper, stop, logger, socket)
    }

    private init(_ service: String, _ options: WorkerOptions, _ secrets: Secrets, _ stopper: Stopper, _ stop: Socket, _ logger: Logger,
                 _ socket: Socket) {
        self.service = service
        self.options = options
        self.secrets = secrets
        self.stopper = stopper
        self.stop = stop
        self.logger = logger
        self.socket = socket
        lastReceived = Clock.milliseconds()
        lastSent = lastReceived
    }

    /// The gateway spoke (its silence restarts now).
    func heard() { lastReceived = Clock.milliseconds() }
    /// We spoke (no heartbeat is due before another interval).
    func spoke() { lastSent = Clock.milliseconds() }
    /// The gateway asked us to reconnect: the next `keepUp` redials.
    func lost() { lastReceived = 0 }

    /// When the next heartbeat is due (monotonic milliseconds).
    var nextHeartbeat: Int64 { lastSent + heartbeat }

    /// Sends a heartbeat when one is due, or redials when the gateway has been silent past its
    /// liveness; false when the stop came while redialling.
    func keepUp() throws -> Bool {
        let now = Clock.milliseconds()
        if now - lastReceived > heartbeat * Int64(options.liveness) {
            logger.warning("gateway lost, redialling", ["endpoint": options.endpoint])
            socket.close()
            var pause = Poller([stop])
            if try pause.poll(timeout: options.reconnectMilliseconds).contains(stop) { return false }
            guard let redialled = try Self.connect(service, options, secrets, stopper, stop, logger) else { return false }
            socket = redialled
            heard()
            spoke()
        } else if now - lastSent >= heartbeat {
            try socket.send(WorkerMessage.heartbeat.frames)
            lastSent = now
        }
        return true
    }

    /// Tells the gateway this worker leaves, and closes the socket.
    func leave() {
        try? socket.send(WorkerMessage.disconnect.frames, wait: false)
        socket.close()
    }

    /// Connects and says READY; tries again, a pause between attempts, until a gateway answers.
    private static func connect(_ service: String, _ options: WorkerOptions, _ secrets: Secrets, _ stopper: Stopper, _ stop: Socket,
                                _ logger: Logger) throws -> Socket? {
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
            if ready.contains(socket), let challenge = try challenge(in: socket.receive(wait: false)) {
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
