import Bus
import Client
import Credentials
import Events
import Foundation
import Majordomo
import Runtime
import SQLite
import Schema
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
    let handler: any RequestHandler
    let logger: Logger
    /// The proofs this service has handled, so none is accepted twice.
    let ledger: ProofLedger
    /// This service's credential, which signs its counters, and its outbox publisher's, which signs
    /// its events (the same name but in tests; set when `run` starts), made ready once: every event
    /// is sealed with it.
    var credential = ""
    var publisherKey = HMACKey("")
    /// Counters sent to the gateway for `/metrics`, and logged when the worker stops.
    var metrics: WorkerMetrics
    var nextMetrics: Int64 = 0
    static let metricsMilliseconds: Int64 = 2000

    // Timed work (ServiceWorker+Timed.swift), in monotonic milliseconds: the next outbox pruning,
    // the next forgetting of old proofs (once a second, one second's worth at the ledger's left
    // edge), and, after a failed tick, when timed work may run again (a persistent failure cannot
    // spin the loop). Events pruned in the current round are logged once the round is done.
    var nextPrune: Int64 = 0
    var nextProofPrune: Int64 = 0
    var tickPausedUntil: Int64 = 0
    var prunedThisRound = 0
    /// The frames of the reply being sent, kept between replies for their room.
    var outgoing: [Data] = []
    /// When a batch waits for more requests before it runs.
    private var gathering: BatchGathering
    /// The requests waiting for other services' answers, when the handler asks any (`inquiring`).
    var desk: InquiryDesk?

    public init(service: String, options: WorkerOptions, handler: any RequestHandler, context: Context, logger: Logger) {
        self.service = service
        self.options = options
        self.handler = handler
        self.logger = logger
        self.stopper = Stopper(context: context)
        metrics = WorkerMetrics(service: service)
        gathering = BatchGathering(window: Int64(options.gatherMicroseconds), largest: options.batchLimit)
        ledger = ProofLedger(store: handler.storage.store)
    }

    /// The service's database and outbox: every transaction of the service is opened here.
    var storage: ServiceStorage { handler.storage }

    /// Serves until `stopper.request()`; then tells the gateway it leaves and returns.
    public func run() throws {
        let secrets = try Secrets.load(directory: options.dataDirectory)
        credential = secrets.serviceSecret(service)
        publisherKey = HMACKey(secrets.serviceSecret(storage.outbox.publisher))
        let stop = try stopper.makeReceiver()
        let events = try Socket(stopper.context, .pub)
        // A PUB socket drops what does not fit its queue; room for bursts (a 1000-device push) keeps them.
        try events.setHighWaterMarks(send: EventBus.queueLimit, receive: EventBus.queueLimit)
        try options.busCurve(secrets)?.secure(events)
        try events.connect(options.eventsIn)
        let subscription = try EventSubscription(handler: handler, service: service, options: options, secrets: secrets,
                                                 context: stopper.context, logger: logger)
        let checkpointer = try startCheckpointer()
        defer {
            checkpointer?.stop()
            subscription?.close()
            events.close()
            stop.close()
        }
        try storage.store.read { db in try ledger.readBack(now: Int64(Date().timeIntervalSince1970), in: db) }
        if !handler.inquiring.isEmpty {
            desk = InquiryDesk(pool: try BusPool(endpoint: options.endpoint, context: stopper.context,
                                                 signer: Signer(service: service, secrets: secrets, forApps: true), serverKey: options.curveServerKey,
                                                 slots: options.inquirySlots, timeoutMilliseconds: options.inquiryTimeoutMilliseconds))
        }
        guard let link = try GatewayLink.dial(service: service, options: options, secrets: secrets, stopper: stopper, stop: stop,
                                              logger: logger) else { return }

        while !stopper.isRequested {
            let broker = link.socket
            var poller = Poller([broker, stop] + (subscription.map { [$0.follower.socket, $0.fetcherSocket] } ?? []) + (desk?.sockets ?? []))
            let wake = min(link.nextHeartbeat, nextTickTime(), subscription?.nextCatchUp ?? .max, nextPrune, nextProofPrune, nextMetrics,
                           desk?.nextDeadline ?? .max)
            let ready = try poller.poll(timeout: Int(max(0, wake - Clock.milliseconds())))
            if ready.contains(stop) { break }
            if ready.contains(broker) {
                switch try serveAvailable(broker, events: events) {
                case .served(let replied):
                    // The gateway spoke before the batch: the time spent serving it is not its silence.
                    link.heard()
                    if replied { link.spoke() }
                case .disconnected: link.lost()
                }
            }
            if let desk {
                desk.service(now: Clock.milliseconds())
                let answered = desk.takeReady()
                if !answered.isEmpty {
                    try serve(answered, broker, events: events)
                    link.spoke()
                }
            }
            if let subscription {
                if ready.contains(subscription.follower.socket) { try subscription.deliverQueued() }
                subscription.catchUpIfDue()
                publishCommittedEvents(events)
                metrics.eventsCaughtUp = subscription.caughtUp
                metrics.laggingPublishers = subscription.laggingCount
            }
            runDueTick(events: events)
            pruneIfDue()
            sendMetricsIfDue(events)
            guard try link.keepUp() else { return }
        }
        link.leave()
        logger.info("worker stopped", ["service": service, "batches": metrics.batches, "batches.run_again": storage.store.batchesRunAgain,
                                       "requests": metrics.requests,
                                       "batch.mean": metrics.batches == 0 ? 0 : metrics.requests / metrics.batches])
    }

    private enum Outcome { case served(replied: Bool), disconnected }

    /// Reads every queued message (up to a batch of requests), waits a moment for more when the
    /// worker is busy (`BatchGathering`), and answers the requests.
    private func serveAvailable(_ broker: Socket, events: Socket) throws -> Outcome {
        var batch: [(client: Data, body: [Data])] = []
        let intake = Clock.microseconds()
        guard try take(from: broker, into: &batch) else { return .disconnected }
        var lastTaken = intake
        let wait = gathering.wait(taken: batch.count, at: intake)
        if wait > 0 {
            metrics.batchesGathered += 1
            usleep(UInt32(wait))
            guard try take(from: broker, into: &batch) else { return .disconnected }
            lastTaken = Clock.microseconds()
        }
        guard !batch.isEmpty else { return .served(replied: false) }
        gathering.record(batch.count, at: intake, lastTaken: lastTaken)
        if let desk { batch = try divert(batch, to: desk, broker) }
        try serve(batch.map { ($0.client, $0.body, []) }, broker, events: events)
        return .served(replied: true)
    }

    /// Answers `batch`. A batch too slow for one heartbeat is committed and answered in parts, so
    /// the gateway hears from this worker at least every half heartbeat and never takes it for lost.
    func serve(_ batch: [(client: Data, body: [Data], answers: [Inquiry.Answer])], _ broker: Socket, events: Socket) throws {
        var answered = 0
        while answered < batch.count {
            let started = Clock.microseconds()
            let part = batch[answered...]
            let replies = answer(part.map(\.body), answers: part.map(\.answers),
                                 until: Clock.milliseconds() + Int64(options.heartbeatMilliseconds / 2))
            metrics.batchLatency.record(seconds: Double(Clock.microseconds() - started) / 1_000_000)
            metrics.batches += 1
            metrics.requests += replies.count
            for reply in replies { metrics.codes[String(ReplySniffer.code(reply) ?? -1), default: 0] += 1 }
            for (item, reply) in zip(part, replies) {
                try broker.send(reusing: &outgoing) { WorkerMessage.writeReply(client: item.client, frame: reply, into: &$0) }
            }
            publishCommittedEvents(events)
            answered += replies.count
        }
    }

    /// Takes every queued message into `batch` until it holds a batch of requests; false when the
    /// gateway asked this worker to reconnect.
    private func take(from broker: Socket, into batch: inout [(client: Data, body: [Data])]) throws -> Bool {
        while batch.count < options.batchLimit, let message = try broker.receive(wait: false) {
            do {
                switch try WorkerMessage(frames: message.frames[...]) {
                case .request(let client, let body): batch.append((client, body))
                case .heartbeat: break
                case .disconnect:
                    logger.notice("gateway asked us to reconnect")
                    return false
                case .ready, .reply:
                    logger.warning("unexpected command from gateway")
                }
            } catch {
                logger.warning("malformed message from gateway", ["error": error])
            }
        }
        return true
    }

    /// Runs a batch in one transaction, each request undone alone when it fails (`Store.writeBatch`),
    /// and stops taking the next request once `deadline` (monotonic milliseconds) has passed; returns
    /// the replies to the requests it took, at least the first. When the commit itself fails, each of
    /// them is answered 6024: that the database is damaged when it is, that the write could not be
    /// committed otherwise.
    /// `answers` are the requests' answers to their inquiries, when they asked any.
    func answer(_ bodies: [[Data]], answers: [[Inquiry.Answer]] = [], until deadline: Int64 = .max) -> [Data] {
        var replies: [Data] = []
        replies.reserveCapacity(bodies.count)
        do {
            try storage.store.writeBatch { db in
                replies.removeAll(keepingCapacity: true)
                for (index, body) in bodies.enumerated() {
                    if !replies.isEmpty, Clock.milliseconds() > deadline { break }
                    replies.append(answer(body, index < answers.count ? answers[index] : [], db))
                }
            }
            return replies
        } catch {
            let failure: CommandError
            if let damage = error as? SQLiteError, damage.isDamage {
                Self.logDamage(damage, during: "batch of \(bodies.count)", store: storage.store, logger: logger)
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
    private static func logDamage(_ damage: SQLiteError, during work: String, store: Store, logger: Logger?) {
        logger?.error("database damaged", ["file": damage.path ?? store.path, "during": work, "error": damage.message])
    }

    /// The reply to a request that threw: a refusal with its own code; 6024 for a damaged database,
    /// logged with its file; anything else logged and answered as an internal error, `fallback`.
    private static func errorReply(_ error: any Error, seq: Int?, during work: String, store: Store, logger: Logger?,
                                   fallback: String) -> Data {
        switch error {
        case let refusal as CommandError:
            logger?.debug("request refused", ["command": work, "code": refusal.code, "reason": refusal.message])
            return WireCodec.errorReply(refusal, seq: seq)
        case let damage as SQLiteError where damage.isDamage:
            logDamage(damage, during: work, store: store, logger: logger)
            return WireCodec.errorReply(.damagedDatabase(damage), seq: seq)
        default:
            logger?.error("request failed", ["command": work, "error": error])
            return WireCodec.errorReply(CommandError(.internalError, fallback), seq: seq)
        }
    }

    /// One request: `[command, payload]`, or `[command, payload, proof, ts]` when it was signed (the
    /// gateway verified the proof, made at `ts`, and forwards both). A proof is recorded in the ledger
    /// outside the request's savepoint, so it is remembered even when the request is refused.
    private func answer(_ body: [Data], _ answers: [Inquiry.Answer], _ db: Database) -> Data {
        guard body.count == 2 || body.count == 4, let command = String(validating: body[0], as: UTF8.self) else {
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
        var request = Request(command: command, payload: body[1], principal: principal)
        request.answers = answers
        if command == EventFetch.command { return fetchEvents(request) }
        return Self.reply(to: request, handler: handler, logger: logger)
    }

    /// How a request reaches a handler, the one way there is: the worker's batches and the handler
    /// tests both come through here. The command is read once and another service's refused; the
    /// handler runs in a savepoint of the caller's transaction, so a refusal undoes only its own
    /// request; its answer, or the code of its refusal, is encoded as the reply. Call inside a write
    /// transaction of the handler's store.
    public static func reply(to request: Request, handler: any RequestHandler, logger: Logger? = nil) -> Data {
        guard let command = Command(rawValue: request.command), command.service == handler.service else {
            return WireCodec.errorReply(.invalid("unknown command \(request.command.prefix(64)) for \(handler.service.name)"),
                                        seq: request.seq)
        }
        let store = handler.storage.store
        do {
            let value = try store.write { db in try handler.handle(command, request, in: db) }
            return WireCodec.successReply(value, seq: request.seq)
        } catch {
            return errorReply(error, seq: request.seq, during: command.name, store: store, logger: logger, fallback: "internal error")
        }
    }

    /// Why a signed request goes no further, or nil: its proof was used before (here, through any
    /// gateway, before any restart), or it is signed by a device that was deleted.
    private func admit(_ proof: Proof, ts: Int64, _ db: Database) -> CommandError? {
        do {
            guard try ledger.record(proof.fingerprint, ts: ts, now: Int64(Date().timeIntervalSince1970), in: db) else {
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
            let answer = try storage.outbox.answer(try request.decode(EventFetch.self), key: publisherKey)
            return WireCodec.successReply(answer, seq: request.seq)
        } catch {
            return Self.errorReply(error, seq: request.seq, during: EventFetch.command, store: storage.store, logger: logger,
                                   fallback: "events could not be read")
        }
    }
}
