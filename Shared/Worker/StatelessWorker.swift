import Bus
import Credentials
import Foundation
import Majordomo
import Runtime
import Threads
import Schema
import ZeroMQ

/// The MDP/0.1 worker loop of a service that keeps nothing (`StatelessHandler`): announces itself
/// with a credit, hands each request to the handler as it comes, and sends each reply when the
/// handler gives it, from whichever thread (through an `Inbox` the loop polls), so a slow answer
/// holds up nothing and the heartbeats never stop. Proofs are checked against a replay cache in
/// memory (a restart forgets them; the gateway's window and its own cache still refuse replays).
/// `run()` blocks on the calling thread, which owns every socket.
public final class StatelessWorker {
    public let service: String
    public let options: WorkerOptions
    /// Any thread may stop the loop through it.
    public let stopper: Stopper
    private let handler: any StatelessHandler
    private let logger: Logger
    private let replies = Inbox<(client: Data, frame: Data)>()
    private var seen = ReplayCache(window: ProofLedger.window + ProofLedger.margin)
    private var metrics: WorkerMetrics
    private var nextMetrics: Int64 = 0
    private var outgoing: [Data] = []
    /// Requests handed to the handler and not answered yet.
    public private(set) var open = 0

    public init(service: String, options: WorkerOptions, handler: any StatelessHandler, context: Context, logger: Logger) {
        self.service = service
        self.options = options
        self.handler = handler
        self.logger = logger
        stopper = Stopper(context: context)
        metrics = WorkerMetrics(service: service)
    }

    /// Serves until `stopper.request()`; then tells the gateway it leaves and returns.
    public func run() throws {
        let secrets = try Secrets.load(directory: options.dataDirectory)
        let credential = secrets.serviceSecret(service)
        let stop = try stopper.makeReceiver()
        let events = try Socket(stopper.context, .pub)
        try options.busCurve(secrets)?.secure(events)
        try events.connect(options.eventsIn)
        defer {
            events.close()
            stop.close()
        }
        guard let link = try GatewayLink.dial(service: service, options: options, secrets: secrets, stopper: stopper, stop: stop,
                                              logger: logger) else { return }
        while !stopper.isRequested {
            var poller = Poller([link.socket, stop], fds: [replies.fd])
            let ready = try poller.poll(timeout: Int(max(0, min(link.nextHeartbeat, nextMetrics) - Clock.milliseconds())))
            if ready.contains(stop) { break }
            if ready.contains(link.socket) {
                if try take(from: link.socket) { link.heard() } else { link.lost() }
            }
            if ready.contains(fd: replies.fd) {
                for (client, frame) in replies.take() {
                    open -= 1
                    metrics.requests += 1
                    metrics.codes[String(ReplySniffer.code(frame) ?? -1), default: 0] += 1
                    try link.socket.send(reusing: &outgoing) { WorkerMessage.writeReply(client: client, frame: frame, into: &$0) }
                    link.spoke()
                }
            }
            if Clock.milliseconds() >= nextMetrics {
                nextMetrics = Clock.milliseconds() + ServiceWorker.metricsMilliseconds
                WorkerMetricsPublisher.send(metrics, on: events, service: service, key: credential)
            }
            guard try link.keepUp() else { return }
        }
        link.leave()
        handler.close()
        logger.info("worker stopped", ["service": service, "requests": metrics.requests, "open": open])
    }

    /// Takes every queued message; false when the gateway asked this worker to reconnect.
    private func take(from broker: Socket) throws -> Bool {
        while let message = try broker.receive(wait: false) {
            switch try? WorkerMessage(frames: message.frames[...]) {
            case .request(let client, let body)?: start(client, body)
            case .disconnect?:
                logger.notice("gateway asked us to reconnect")
                return false
            case .heartbeat?: break
            default: logger.warning("unexpected or malformed message from gateway")
            }
        }
        return true
    }

    /// One request: `[command, payload]`, or `[command, payload, proof, ts]` when signed.
    private func start(_ client: Data, _ body: [Data]) {
        // The payload's `seq` is read here only for a refusal: the handler's decode reads it with the rest.
        func refuse(_ error: CommandError) {
            let seq = body.count >= 2 ? WireCodec.seq(of: body[1]) : nil
            replies.post((client, WireCodec.errorReply(error, seq: seq)))
            open += 1
        }
        guard body.count == 2 || body.count == 4, let name = String(validating: body[0], as: UTF8.self) else {
            return refuse(.invalid("a request body is two frames, command and JSON payload, then the proof and its ts if signed"))
        }
        var principal: Principal?
        if body.count == 4 {
            guard let proof = Proof(frame: body[2]), let ts = Int64(String(decoding: body[3], as: UTF8.self)) else {
                return refuse(.invalid("the third and fourth frames must be the request's proof and its ts"))
            }
            guard seen.insert(fingerprint: proof.fingerprint, ts: ts, now: Int64(Date().timeIntervalSince1970)) else {
                return refuse(CommandError(.appKeyInvalid, "proof already used"))
            }
            principal = proof.principal
        }
        guard let command = Command(rawValue: name), command.service == handler.service else {
            return refuse(.invalid("unknown command \(name.prefix(64)) for \(handler.service.name)"))
        }
        open += 1
        handler.handle(command, Request(command: name, payload: body[1], principal: principal)) { [replies] frame in
            replies.post((client, frame))
        }
    }
}
