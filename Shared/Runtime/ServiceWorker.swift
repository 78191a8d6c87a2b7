import Credentials
import Foundation
import Majordomo
import Schema
import SQLite
import ZeroMQ

/// The MDP/0.1 worker loop of a service: announces itself with a credit, takes up to half that many
/// requests at once, runs them through the handler in one transaction (group commit), replies
/// after the commit, then publishes the events the batch committed. Heartbeats both ways; redials
/// a gateway that went quiet. `run()` blocks on the calling thread, which owns every socket.
public final class ServiceWorker {
    public let service: String
    public let options: WorkerOptions
    /// Any thread may stop the loop through it.
    public let stopper: Stopper
    private let handler: any RequestHandler
    /// The service's database and outbox: every transaction of the service is opened here.
    private let storage: ServiceStorage
    private let dispatcher: Dispatcher
    private let logger: Logger
    /// The proofs this service has handled, so none is accepted twice.
    private let ledger = ProofLedger()
    /// This service's credential, which signs its counters, and its outbox publisher's, which signs
    /// its events (the same name but in tests; set when `run` starts).
    private var credential = ""
    private var publisherCredential = ""
    /// Counters sent to the gateway for `/metrics`, and logged when the worker stops.
    private var metrics: WorkerMetrics
    private var nextMetrics: Int64 = 0
    static let metricsMilliseconds: Int64 = 2000

    public init(service: String, options: WorkerOptions, handler: any RequestHandler, context: Context, logger: Logger) {
        self.service = service
        self.options = options
        self.handler = handler
        storage = handler.storage
        dispatcher = Dispatcher(handler, logger: logger)
        self.logger = logger
        self.stopper = Stopper(context: context)
        metrics = WorkerMetrics(service: service)
    }

    /// Serves until `stopper.request()`; then tells the gateway it leaves and returns.
    public func run() throws {
        let secrets = try Secrets.load(directory: options.dataDirectory)
        credential = secrets.serviceSecret(service)
        publisherCredential = secrets.serviceSecret(storage.outbox.publisher)
        let stop = try stopper.makeReceiver()
        let events = try Socket(stopper.context, .pub)
        // A PUB socket drops what does not fit its queue; room for bursts (a 1000-device push) keeps them.
        try events.setHighWaterMarks(send: EventBus.queueLimit, receive: EventBus.queueLimit)
        try options.busCurve(secrets)?.secure(events)
        try events.connect(options.events)
        let subscription = try EventSubscription(handler: handler, service: service, options: options, secrets: secrets,
                                                 context: stopper.context, logger: logger)
        let checkpointer = try startCheckpointer()
        defer {
            checkpointer?.stop()
            subscription?.close()
            events.close()
            stop.close()
        }
        guard var broker = try dial(secrets, stop: stop) else { return }
        var lastReceived = Clock.milliseconds()
        var lastSent = lastReceived
        let heartbeat = Int64(options.heartbeatMilliseconds)

        while !stopper.isRequested {
            var poller = Poller([broker, stop] + (subscription.map { [$0.follower.socket, $0.fetcherSocket] } ?? []))
            let wake = min(lastSent + heartbeat, nextTickTime(), subscription?.nextCatchUp ?? .max, nextPrune, nextProofPrune, nextMetrics)
            let ready = try poller.poll(timeout: Int(max(0, wake - Clock.milliseconds())))
            if ready[1] { break }
            if ready[0] {
                switch try serveAvailable(broker, events: events) {
                case .served(let replied):
                    // The gateway spoke before the batch: the time spent serving it is not its silence.
                    lastReceived = Clock.milliseconds()
                    if replied { lastSent = lastReceived }
                case .disconnected: lastReceived = 0
                }
            }
            if let subscription {
                if ready[2] { try subscription.deliverQueued() }
                subscription.catchUpIfDue()
                publishCommittedEvents(events)
                metrics.eventsCaughtUp = subscription.caughtUp
                metrics.laggingPublishers = subscription.laggingCount
            }
            runDueTick(events: events)
            pruneIfDue()
            sendMetricsIfDue(events)
            let now = Clock.milliseconds()
            if now - lastReceived > heartbeat * Int64(options.liveness) {
                logger.warning("gateway lost, redialling", ["endpoint": options.broker])
                broker.close()
                var pause = Poller([stop])
                if try pause.poll(timeout: options.reconnectMilliseconds)[0] { return }
                guard let redialled = try dial(secrets, stop: stop) else { return }
                broker = redialled
                lastReceived = Clock.milliseconds()
                lastSent = lastReceived
            } else if now - lastSent >= heartbeat {
                try broker.send(WorkerMessage.heartbeat.frames)
                lastSent = now
            }
        }
        try? broker.send(WorkerMessage.disconnect.frames, wait: false)
        broker.close()
        logger.info("worker stopped", ["service": service, "batches": metrics.batches, "requests": metrics.requests,
                                       "batch.mean": metrics.batches == 0 ? 0 : metrics.requests / metrics.batches])
    }

    // MARK: timed work

    /// Sends this worker's counters to the gateway (`metrics.<service>` on the bus) every two seconds.
    private func sendMetricsIfDue(_ socket: Socket) {
        guard Clock.milliseconds() >= nextMetrics else { return }
        nextMetrics = Clock.milliseconds() + Self.metricsMilliseconds
        let topic = WorkerMetrics.topicPrefix + service
        let counters = WireCodec.encode(metrics)
        let proof = EventSeal.proof(topic: topic, event: counters, publisher: service, key: credential)
        try? socket.send(Message([Data(topic.utf8), counters, proof]), wait: false)
    }

    /// The handler's database checkpointed from a thread of its own, unless turned off or in memory.
    private func startCheckpointer() throws -> WALCheckpointer? {
        guard options.checkpointMilliseconds > 0, !storage.store.isInMemory else { return nil }
        return try WALCheckpointer(path: storage.store.path, interval: .milliseconds(options.checkpointMilliseconds))
    }

    /// Monotonic milliseconds of the next outbox pruning.
    private var nextPrune: Int64 = 0
    /// Events pruned by the batches of the current round, logged once the round is done.
    private var prunedThisRound = 0

    /// Monotonic milliseconds of the next forgetting of old proofs, once a second: each round deletes
    /// one second's worth at the left edge of the ledger.
    private var nextProofPrune: Int64 = 0

    private func pruneProofsIfDue() {
        guard Clock.milliseconds() >= nextProofPrune else { return }
        nextProofPrune = Clock.milliseconds() + 1000
        do {
            try storage.store.write { db in try ledger.prune(now: Int64(Date().timeIntervalSince1970), in: db) }
        } catch {
            logger.warning("proof pruning failed", ["error": error])
        }
    }

    /// Deletes published events older than the retention: once a minute, or, while a backlog is
    /// left, a bounded batch every few milliseconds, so requests keep being served in between.
    private func pruneIfDue() {
        pruneProofsIfDue()
        guard Clock.milliseconds() >= nextPrune else { return }
        nextPrune = Clock.milliseconds() + 60_000
        do {
            let cutoff = Date().timeIntervalSince1970 - Double(options.eventRetentionHours) * 3600
            let pruned = try storage.outbox.prune(before: cutoff)
            prunedThisRound += pruned
            if pruned == Outbox.pruneLimit {
                nextPrune = Clock.milliseconds() + 5
                return
            }
            if prunedThisRound > 0 { logger.info("events pruned", ["count": prunedThisRound]) }
            prunedThisRound = 0
        } catch {
            logger.warning("event pruning failed", ["error": error])
        }
    }

    /// Monotonic milliseconds at which the handler wants its next tick (far future when never).
    private func nextTickTime() -> Int64 {
        guard let due = handler.nextTick() else { return Int64.max / 2 }
        let wait = max(Clock.milliseconds(), tickPausedUntil) - Clock.milliseconds()
        return Clock.milliseconds() + max(wait, Int64((due.timeIntervalSinceNow * 1000).rounded(.up)))
    }

    /// After a failed tick, timed work waits this long so a persistent failure cannot spin the loop.
    private var tickPausedUntil: Int64 = 0

    private func runDueTick(events: Socket) {
        guard Clock.milliseconds() >= tickPausedUntil, let due = handler.nextTick(), due <= Date() else { return }
        do {
            try storage.store.write { db in try handler.tick(now: Date(), in: db) }
        } catch {
            logger.error("timed work failed", ["error": error])
            tickPausedUntil = Clock.milliseconds() + 1000
        }
        publishCommittedEvents(events)
    }

    private enum Outcome { case served(replied: Bool), disconnected }

    /// Reads every queued message (up to a batch of requests) and answers the requests.
    private func serveAvailable(_ broker: Socket, events: Socket) throws -> Outcome {
        var batch: [(client: Data, body: [Data])] = []
        while batch.count < options.batchLimit, let message = try broker.receive(wait: false) {
            do {
                switch try WorkerMessage(frames: message.frames[...]) {
                case .request(let client, let body): batch.append((client, body))
                case .heartbeat: break
                case .disconnect:
                    logger.notice("gateway asked us to reconnect")
                    return .disconnected
                case .ready, .reply:
                    logger.warning("unexpected command from gateway")
                }
            } catch {
                logger.warning("malformed message from gateway", ["error": error])
            }
        }
        guard !batch.isEmpty else { return .served(replied: false) }
        // A batch too slow for one heartbeat is committed and answered in parts, so the gateway
        // hears from this worker at least every half heartbeat and never takes it for lost.
        var answered = 0
        while answered < batch.count {
            let started = Clock.microseconds()
            let part = batch[answered...]
            let replies = answer(part.map(\.body), until: Clock.milliseconds() + Int64(options.heartbeatMilliseconds / 2))
            metrics.batchLatency.record(seconds: Double(Clock.microseconds() - started) / 1_000_000)
            metrics.batches += 1
            metrics.requests += replies.count
            for reply in replies { metrics.codes[String(ReplySniffer.code(reply) ?? -1), default: 0] += 1 }
            for (item, reply) in zip(part, replies) {
                try broker.send(WorkerMessage.reply(client: item.client, body: [reply]).frames)
            }
            publishCommittedEvents(events)
            answered += replies.count
        }
        return .served(replied: true)
    }

    /// Runs a batch in one transaction, each request in its own savepoint so one failure stays alone,
    /// and stops taking the next request once `deadline` (monotonic milliseconds) has passed; returns
    /// the replies to the requests it took, at least the first. When the commit itself fails, each of
    /// them is answered 6024: that the database is damaged when it is, that the write could not be
    /// committed otherwise.
    func answer(_ bodies: [[Data]], until deadline: Int64 = .max) -> [Data] {
        var replies: [Data] = []
        replies.reserveCapacity(bodies.count)
        do {
            try storage.store.write { db in
                for body in bodies {
                    if !replies.isEmpty, Clock.milliseconds() > deadline { break }
                    replies.append(answer(body, db))
                }
            }
            return replies
        } catch {
            let failure: CommandError
            if let damage = error as? SQLiteError, damage.isDamage {
                logDamage(damage, during: "batch of \(bodies.count)")
                failure = .damagedDatabase(damage)
            } else {
                logger.error("batch commit failed", ["error": error, "batch.size": bodies.count])
                failure = CommandError(.internalError, "the write could not be committed")
            }
            return bodies.prefix(max(replies.count, 1)).map {
                WireCodec.errorReply(failure, seq: $0.count >= 2 ? WireCodec.seq(of: $0[1]) : nil)
            }
        }
    }

    /// One line naming the damaged file and what ran into it.
    private func logDamage(_ damage: SQLiteError, during work: String) {
        logger.error("database damaged", ["file": damage.path ?? storage.store.path, "during": work, "error": damage.message])
    }

    /// One request: `[command, payload]`, or `[command, payload, proof, ts]` when it was signed (the
    /// gateway verified the proof, made at `ts`, and forwards both). A proof is recorded in the ledger
    /// outside the request's savepoint, so it is remembered even when the request is refused.
    private func answer(_ body: [Data], _ db: Database) -> Data {
        guard body.count == 2 || body.count == 4, let command = String(data: body[0], encoding: .utf8) else {
            return WireCodec.errorReply(.invalid("a request body is two frames, command and JSON payload, then the proof and its ts if signed"))
        }
        var principal: Principal?
        if body.count == 4 {
            guard let proof = Proof(frame: body[2]), let ts = Int64(String(decoding: body[3], as: UTF8.self)) else {
                return WireCodec.errorReply(.invalid("the third and fourth frames must be the request's proof and its ts"),
                                            seq: WireCodec.seq(of: body[1]))
            }
            if let refusal = admit(proof, ts: ts, db) { return WireCodec.errorReply(refusal, seq: WireCodec.seq(of: body[1])) }
            principal = proof.principal
        }
        let request = Request(command: command, payload: body[1], principal: principal)
        if command == EventFetch.command { return fetchEvents(request) }
        return dispatcher.reply(to: request)
    }

    /// Why a signed request goes no further, or nil: its proof was used before (here, through any
    /// gateway, before any restart), or it is signed by a device that was deleted.
    private func admit(_ proof: Proof, ts: Int64, _ db: Database) -> CommandError? {
        do {
            guard try ledger.record(proof.fingerprint, ts: ts, in: db) else {
                return CommandError(.appKeyInvalid, "proof already used")
            }
            if case .device(let id) = proof.principal, try Tombstones.contains(db, registrationID: id) {
                return Tombstones.refusal
            }
            return nil
        } catch {
            logger.error("proof not recorded", ["error": error])
            return CommandError(.internalError, "the request could not be recorded")
        }
    }

    /// `events.fetch`: a subscriber catching up reads this service's outbox.
    private func fetchEvents(_ request: Request) -> Data {
        do {
            let answer = try storage.outbox.answer(try request.decode(EventFetch.self), credential: publisherCredential)
            return WireCodec.successReply(answer, seq: request.seq)
        } catch let error as CommandError {
            return WireCodec.errorReply(error, seq: request.seq)
        } catch let damage as SQLiteError where damage.isDamage {
            logDamage(damage, during: EventFetch.command)
            return WireCodec.errorReply(.damagedDatabase(damage), seq: request.seq)
        } catch {
            return WireCodec.errorReply(CommandError(.internalError, "events could not be read"), seq: request.seq)
        }
    }

    private func publishCommittedEvents(_ socket: Socket) {
        do {
            for event in storage.outbox.takeCommitted() {
                try socket.send(Message([Data(event.topic.utf8), event.event, storage.outbox.seal(event, credential: publisherCredential)]),
                                wait: false)
                metrics.eventsPublished += 1
            }
        } catch {
            logger.warning("event publish failed", ["error": error])
        }
    }

    /// Connects to the gateway and says READY, with the credential that proves this is our service
    /// signed over the challenge the gateway gives this very connection (`mmi.challenge`). Tries
    /// again, a pause between attempts, until a gateway answers; nil when asked to stop meanwhile.
    private func dial(_ secrets: Secrets, stop: Socket) throws -> Socket? {
        while !stopper.isRequested {
            let socket = try Socket(stopper.context, .dealer)
            if let key = options.curveServerKey { try socket.makeCurveClient(serverKey: key) }
            try socket.connect(options.broker)
            try socket.send(ClientMessage(service: MDP.challengeService, body: [Data()]).frames)
            var poller = Poller([socket, stop])
            let ready = try poller.poll(timeout: options.heartbeatMilliseconds * options.liveness)
            if ready[1] {
                socket.close()
                return nil
            }
            if ready[0], let challenge = try Self.challenge(in: socket.receive(wait: false)) {
                let credential = WorkerCredential(service: service, credit: options.credit, challenge: challenge, secrets: secrets)
                try socket.send(WorkerMessage.ready(service: service, credit: options.credit,
                                                    credential: [credential.stamp, credential.proof]).frames)
                logger.info("worker connected", ["service": service, "broker": options.broker, "credit": options.credit])
                return socket
            }
            socket.close()
            logger.notice("no answer from the gateway, trying again", ["endpoint": options.broker])
            var pause = Poller([stop])
            if try pause.poll(timeout: options.reconnectMilliseconds)[0] { return nil }
        }
        return nil
    }

    /// The challenge in the gateway's answer to `mmi.challenge`, if `message` is that answer.
    private static func challenge(in message: Message?) -> String? {
        guard let message, let reply = try? ClientMessage(frames: message.frames[...]), reply.service == MDP.challengeService,
              let first = reply.body.first, !first.isEmpty else { return nil }
        return String(decoding: first, as: UTF8.self)
    }
}
