import Bus
import Caches
import Credentials
import Foundation
import Majordomo
import Runtime
import Schema
import ZeroMQ

/// The gateway: an MDP/0.1 broker (RFC 7) with MMI (RFC 8) on one ROUTER for clients and workers,
/// the virtual service `device` that routes a command to the service that owns it, and the event
/// bus (XSUB in, XPUB out). Every accepted request is answered exactly once: by its worker, or with
/// code 6002 at its deadline or when its worker dies. `run()` blocks; its thread owns every socket.
public final class Broker {
    public let options: GatewayOptions
    /// Any thread may stop the loop through it.
    public let stopper: Stopper
    let logger: Logger

    var router: Socket!
    var authenticator: Authenticator!
    /// Checks the publisher's proof on every event before the bus carries it on.
    var eventVerifier: EventVerifier!
    /// Unsigned or forged events dropped, logged at most once a second.
    private var forgedEvents = ThrottledCount()
    /// With `--curve`, who may connect to the bus.
    private var zap: ZAPHandler?
    // Not `lazy`: a lazy property is mutated through a copy that it then stores back, so every
    // count would copy each dictionary these hold (dhat: 4 copies a request; the rate limits' maps
    // grow with the devices).
    var metrics: GatewayMetrics
    var metricsServer: MetricsServer?
    var recorder: Recorder?
    var requests: [UInt64: PendingRequest] = [:]
    /// Accepted requests by deadline: one queue in arrival order per timeout (the request timeout,
    /// and the longer ones of `--service-timeout-ms`), so each queue's deadlines are in order.
    var deadlines: [Int: FirstInFirstOut<(id: UInt64, at: Int64)>] = [:]
    var services: [String: ServiceQueue] = [:]
    var workers: [Data: WorkerRecord] = [:]
    var nextID: UInt64 = 1
    /// The frames of the message being sent (`send(to:_:)`), kept between messages for their room.
    var outgoing: [Data] = []
    /// App-wide queries waiting for their shards' replies.
    var gathers: [UInt64: Gather] = [:]
    private var roundRobin = 0
    private var principalRate: PrincipalRateLimit
    /// Worker-protocol messages from peers that are not admitted workers, logged at most once a second.
    var strangers = ThrottledCount()
    private var registerRate: RegistrationRateLimit
    /// The virtual service a device sends every command to; the gateway routes it by the command.
    public static let deviceService = MDP.deviceService
    /// Body frames a request may have; device commands have two.
    static let maxBodyFrames = 16

    /// Distinct service names kept at once, so garbage names cannot grow memory without bound.
    static let maxServices = 1024
    /// Messages read from the ROUTER per loop turn before timers get a look.
    static let readBatch = 1024

    public init(options: GatewayOptions, context: Context, logger: Logger) {
        self.options = options
        self.logger = logger
        self.stopper = Stopper(context: context)
        metrics = GatewayMetrics(shards: options.shards)
        principalRate = PrincipalRateLimit(appRate: options.appRate, deviceRate: options.deviceRate)
        registerRate = RegistrationRateLimit(perSecond: options.registerRate, burst: options.registerBurst)
    }

    /// Binds the endpoints and serves until `stopper.request()`. Throws if an endpoint cannot be bound.
    public func run() throws {
        let context = stopper.context
        let stop = try stopper.makeReceiver()
        let secrets = try Secrets.load(directory: options.dataDirectory)
        authenticator = Authenticator(secrets: secrets, keyCacheBytes: options.keyCacheMegabytes << 20)
        eventVerifier = EventVerifier(secrets: secrets)
        router = try Socket(context, .router)
        let eventsIn = try Socket(context, .xsub)
        let eventsOut = try Socket(context, .xpub)
        if let path = options.curveSecretFile {
            let keys = try CurveKeys(secretKey: try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
            zap = try ZAPHandler(context: context, busPublicKey: try BusCurve.keys(secrets).publicKey, logger: logger)
            try router.makeCurveServer(keys)
            try eventsIn.makeCurveServer(keys, domain: BusCurve.domain)
            try eventsOut.makeCurveServer(keys, domain: BusCurve.domain)
            logger.info("requests and the event bus need CURVE; the bus admits PushBus services only", ["public.key": keys.publicKey])
        }
        try router.setHighWaterMarks(send: 100_000, receive: 100_000)
        try router.setMaxMessageSize(Int64(options.maxRequestBytes) * 4)
        try router.bind(options.endpoint)
        try eventsIn.setHighWaterMarks(send: EventBus.queueLimit, receive: EventBus.queueLimit)
        try eventsIn.bind(options.eventsIn)
        try eventsOut.setHighWaterMarks(send: EventBus.queueLimit, receive: EventBus.queueLimit)
        try eventsOut.bind(options.eventsOut)
        try followOwnTopics(eventsIn)
        if let address = options.metricsAddress {
            let parts = address.split(separator: ":")
            guard parts.count == 2, let port = UInt16(parts[1]) else {
                throw GatewayError.metricsAddress(address)
            }
            let server = try MetricsServer(host: String(parts[0]), port: port)
            metricsServer = server
            logger.info("metrics served", ["address": address, "connections.max": server.connectionLimit,
                                           "open.files": OpenFileLimit.current])
        }
        if let path = options.recordPath {
            recorder = try Recorder(path: path, start: Clock.milliseconds())
            logger.info("recording", ["file": path])
        }
        logger.info("gateway bound", ["endpoint": options.endpoint, "events.in": options.eventsIn,
                                      "events.out": options.eventsOut])
        defer {
            for identity in workers.keys { try? router.send(Message([identity] + WorkerMessage.disconnect.frames.frames), wait: false) }
            recorder?.close()
            metricsServer?.stop()
            router.close()
            eventsIn.close()
            eventsOut.close()
            zap?.close()
            stop.close()
            logger.info("gateway stopped")
        }

        publishMetrics(now: Clock.milliseconds())
        var poller = Poller([router, eventsIn, eventsOut, stop] + (zap.map { [$0.socket] } ?? []))
        var nextHeartbeat = Clock.milliseconds() + Int64(options.heartbeatMilliseconds)
        while !stopper.isRequested {
            let now = Clock.milliseconds()
            let ready = try poller.poll(timeout: Int(max(0, min(nextHeartbeat, nextDeadline() ?? nextHeartbeat) - now)))
            if ready.contains(stop) { break }
            if ready.contains(router) { try readRequests() }
            if ready.contains(eventsIn) { try forward(from: eventsIn, to: eventsOut, publications: true) }
            if ready.contains(eventsOut) { try forward(from: eventsOut, to: eventsIn, publications: false) }
            if let zap, ready.contains(zap.socket) { try zap.answerAll() }
            let after = Clock.milliseconds()
            expireRequests(now: after)
            if after >= nextHeartbeat {
                heartbeatWorkers(now: after)
                try followOwnTopics(eventsIn)
                recorder?.flush()
                publishMetrics(now: after)
                nextHeartbeat = after + Int64(options.heartbeatMilliseconds)
            }
        }
    }

    // MARK: inbound

    private func readRequests() throws {
        let wantsPeer = options.registerRate > 0 ? RegistrationRateLimit.mayBeUnsignedRegistration : { _ in false }
        var count = 0
        while count < Self.readBatch, let (message, peerAddress) = try router.receive(wait: false, peerAddressIf: wantsPeer) {
            count += 1
            do {
                switch try Inbound(message) {
                case .client(let sender, let request): handleClient(sender, request, peerAddress: peerAddress)
                case .worker(let sender, let command): handleWorker(sender, command)
                }
            } catch {
                handleMalformed(error)
            }
        }
    }

    private func handleMalformed(_ malformed: Inbound.Malformed) {
        logger.debug("malformed message", ["reason": malformed.error.reason])
        guard let sender = malformed.sender else { return }
        if malformed.isWorker {
            removeWorker(sender, reason: "protocol error")
            send(to: sender, WorkerMessage.disconnect)
        } else if malformed.isAddressableClient {
            send(to: sender, ClientMessage(service: "", body: [WireCodec.errorReply(.invalid(malformed.error.description))]))
        }
    }

    /// `peerAddress` is the sender's IP, read for what may be an unsigned registration only.
    private func handleClient(_ sender: Data, _ signed: ClientMessage, peerAddress: String?) {
        if signed.service.hasPrefix(MDP.mmiPrefix) {
            answerMMI(sender, signed)
            return
        }
        guard signed.body.reduce(0, { $0 + $1.count }) <= options.maxRequestBytes else {
            refuse(sender, signed, .invalid("request is over the \(options.maxRequestBytes)-byte limit"), seq: nil)
            return
        }
        var request = signed
        var keys = PayloadKeys()
        var proof: VerifiedProof?
        var principal: Principal?
        var isUnsignedRegistration = false
        // The command is read once, here; nil when the table does not have it.
        let name = request.body.first.map { String(decoding: $0, as: UTF8.self) }
        let known = name.flatMap(Command.init(rawValue:))
        if let command = name, request.body.count >= 2 {
            if request.service == Self.deviceService, known == nil {
                // No signature makes an unknown command routable: refused before any proof is looked at.
                refuse(sender, request, .invalid("unknown command \(command.prefix(64))"), seq: WireCodec.seq(of: request.body[1]))
                return
            }
            do {
                // Read in place when the scanner can tell; else (and for every refusal) by the decoder.
                if let scanned = PayloadKeys.scan(request.body[1]) {
                    keys = scanned
                } else {
                    keys = try WireCodec.decode(PayloadKeys.self, from: request.body[1])
                }
            } catch {
                refuse(sender, request, error, seq: WireCodec.seq(of: request.body[1]))
                return
            }
            switch authenticator.check(command: command, known: known, body: request.body, claims: keys, now: Int64(Date().timeIntervalSince1970)) {
            case .success(let admission):
                request.body = admission.body
                proof = admission.proof
                principal = admission.principal
                isUnsignedRegistration = !admission.isSigned && known == .deviceRegister
            case .failure(let error):
                refuse(sender, request, error, seq: keys.seq)
                return
            }
        }
        let seq = { keys.seq ?? request.body.last.flatMap(WireCodec.seq(of:)) }
        guard request.body.count <= Self.maxBodyFrames else {
            refuse(sender, request, .invalid("request has \(request.body.count) frames; at most \(Self.maxBodyFrames)"), seq: nil)
            return
        }
        // Only a verified proof spends a rate, the rate of whoever signed it, so nobody spends an app's
        // but its server; the one unsigned command is limited by the address it comes from.
        if let principal, !principalRate.allow(principal, now: Clock.milliseconds()) {
            refuse(sender, request, CommandError(.tooFrequent, "more requests a second than \(principal) may send, slow down"), seq: seq())
            return
        }
        if options.registerRate > 0, isUnsignedRegistration, !options.edgePeers.contains(peerAddress ?? ""),
           !registerRate.allow(peer: peerAddress, now: Clock.milliseconds()) {
            refuse(sender, request, CommandError(.tooFrequent, "more than \(options.registerRate) registrations a second from this address, slow down"),
                   seq: seq())
            return
        }
        var target = request.service
        if ShardHash.isShardName(target), let known, !known.isInternal {
            // The gateway picks a device's shard by its hash: a request sent to another shard could
            // register an install twice, or replay a proof that shard's ledger never saw. Only
            // PushBus's internal commands (`events.fetch`, `live.push` to the channel process that
            // holds a connection), which only its services sign, name a shard.
            refuse(sender, request, .invalid("send to \(ShardHash.baseService(of: target)) or device, not to one of its shards"), seq: seq())
            return
        }
        if request.service == Self.deviceService {
            // The virtual service `device`: the command table names the service that owns the command.
            guard request.body.count == 2, let command = known else {
                refuse(sender, request, .invalid("a device request is [command, JSON payload]; got \(request.body.count) frames"), seq: seq())
                return
            }
            target = command.service.name
        }
        let shards = options.shards.count(target)
        if shards > 1 {
            guard request.body.count == 2, let command = known, command.service.name == target else {
                refuse(sender, request, .invalid("a sharded service takes [command, JSON payload] of its own commands"), seq: seq())
                return
            }
            switch ShardRoute.route(command, payload: request.body[1], keys: keys, count: shards,
                                    next: { roundRobin += 1; return roundRobin }) {
            case .one(let shard):
                target = ShardHash.serviceName(target, shard: shard, of: shards)
            case .all(let parts):
                scatter(sender, request, command: command, service: target, parts: parts, proof: proof, seq: seq())
                return
            case .paged(let paging):
                page(sender, request, service: target, paging: paging, proof: proof, seq: seq())
                return
            }
        }
        accept(sender, request, target: target, body: request.body, proof: proof, seq: seq)
    }

    /// Queues a request for `target`, or refuses it when the service's queue is full. Returns its id.
    @discardableResult
    func accept(_ sender: Data, _ request: ClientMessage, target: String, body: [Data], proof: VerifiedProof?, seq: () -> Int?,
                part: PendingRequest.Part? = nil) -> UInt64? {
        if services[target] == nil && services.count >= Self.maxServices {
            refuse(sender, request, .invalid("unknown service \(target)"), seq: seq())
            return nil
        }
        let queue = queue(for: target)
        queue.dropAnswered(isPending: isPending)
        guard queue.waitingCount < options.queueLimit else {
            refuse(sender, request, CommandError(.timeout, "service \(target) is busy: its queue is full, retry later"), seq: seq())
            return nil
        }
        let id = nextID
        nextID += 1
        let now = Clock.milliseconds()
        let timeout = options.timeout(for: target)
        let deadline = now + Int64(timeout)
        requests[id] = PendingRequest(client: sender, replyService: request.service, target: target,
                                      body: body, proof: proof, deadline: deadline, arrivedAt: now, part: part)
        deadlines[timeout, default: FirstInFirstOut()].append((id, deadline))
        queue.enqueue(id)
        metrics.accepted(target, hasWorkers: { hasWorkers(target) })
        dispatch(target)
        return id
    }

    // MARK: dispatch

    /// Hands waiting requests of `service` to its workers while any has credit left.
    func dispatch(_ service: String) {
        guard let queue = services[service], !queue.workers.isEmpty else { return }
        while queue.waitingCount > 0 {
            guard let worker = takeWorkerWithCredit(queue) else { return }
            guard let id = queue.dequeue() else { return }
            // The two fields sent, read in place: a copy of the whole request retains each of its parts.
            guard let index = requests.index(forKey: id) else { continue }
            let (body, proof) = (requests.values[index].body, requests.values[index].proof)
            worker.inFlight.insert(id)
            send(to: worker.identity) { frames in
                WorkerMessage.request(client: RequestToken.encode(id), body: body).write(into: &frames)
                proof?.write(into: &frames)
            }
        }
    }

    /// Whether request `id` still waits for its answer (looked up without copying the request out).
    func isPending(_ id: UInt64) -> Bool { requests.index(forKey: id) != nil }

    private func takeWorkerWithCredit(_ queue: ServiceQueue) -> WorkerRecord? {
        let count = queue.workers.count
        for step in 0..<count {
            let index = (queue.nextWorker + step) % count
            if let worker = workers[queue.workers[index]], worker.hasCredit {
                queue.nextWorker = (index + 1) % count
                return worker
            }
        }
        return nil
    }

    /// The queue of `service`, made when it has none.
    func queue(for service: String) -> ServiceQueue {
        if let queue = services[service] { return queue }
        let queue = ServiceQueue()
        services[service] = queue
        return queue
    }

    // MARK: outbound

    /// Sends a worker's reply (or the broker's error) to the client of an accepted request; the part
    /// of an app-wide query waits for the other shards instead.
    func answer(_ request: PendingRequest, _ body: [Data]) {
        if let part = request.part {
            collect(part, body.first ?? Data())
            return
        }
        send(to: request.client, ClientMessage(service: request.replyService, body: body))
        recorder?.record(arrivedAt: request.arrivedAt, service: request.replyService, body: request.body, reply: body)
        // The closure captures the target alone: capturing `request` copied it, retaining each of its parts.
        let target = request.target
        metrics.answered(target, hasWorkers: { hasWorkers(target) }, reply: body.first, arrivedAt: request.arrivedAt,
                         now: Clock.milliseconds())
    }

    func answer(_ request: PendingRequest, _ error: CommandError) {
        answer(request, [WireCodec.errorReply(error, seq: request.body.last.flatMap(WireCodec.seq(of:)))])
    }

    /// Answers a request the broker refuses before accepting it.
    func refuse(_ sender: Data, _ request: ClientMessage, _ error: CommandError, seq: Int?) {
        let body = [WireCodec.errorReply(error, seq: seq)]
        send(to: sender, ClientMessage(service: request.service, body: body))
        metrics.answered(request.service, hasWorkers: { hasWorkers(request.service) }, reply: body.first, arrivedAt: Clock.milliseconds(),
                         now: Clock.milliseconds())
        recorder?.record(arrivedAt: Clock.milliseconds(), service: request.service, body: request.body, reply: body)
    }

    func send(to identity: Data, _ message: WorkerMessage) {
        send(to: identity) { message.write(into: &$0) }
    }

    func send(to identity: Data, _ message: ClientMessage) {
        send(to: identity) { message.write(into: &$0) }
    }

    /// Sends to `identity` the frames `write` appends, through the list of frames kept for sending.
    func send(to identity: Data, _ write: (inout [Data]) -> Void) {
        do {
            try router.send(reusing: &outgoing, wait: false) { frames in
                frames.append(identity)
                write(&frames)
            }
        } catch {
            logger.warning("send failed", ["error": error])
        }
    }

    /// The gateway itself follows the workers' counters and device deletions, whoever else does.
    /// Said again every heartbeat: the last subscriber of a topic leaving unsubscribes it upstream.
    private func followOwnTopics(_ eventsIn: Socket) throws {
        for topic in [WorkerMetrics.topicPrefix, Topic.deviceDeleted.rawValue] {
            try eventsIn.send(Message([Data([1]) + Data(topic.utf8)]), wait: false)
        }
    }

    /// Moves bus traffic on: publications (`publications: true`) from events-in to events-out, and
    /// subscriptions back. A publication goes on only when its publisher's proof verifies.
    private func forward(from source: Socket, to sink: Socket, publications: Bool) throws {
        var count = 0
        while count < Self.readBatch, let message = try source.receive(wait: false) {
            count += 1
            if publications {
                guard message.count == 3, let topic = message.string(at: 0),
                      let publisher = eventVerifier.publisher(topic: topic, event: message[1], proof: message[2]) else {
                    metrics.eventsRefused += 1
                    forgedEvents.note(now: Clock.milliseconds()) { count in
                        logger.warning("unsigned or forged events dropped", ["count": count])
                    }
                    continue
                }
                metrics.forwarded(topic: message[0], event: message[1], publisher: publisher, hasWorkers: hasWorkers)
                if topic == Topic.deviceDeleted.rawValue, ShardHash.baseService(of: publisher) == Service.registration.name,
                   let deleted = try? BusEvent(topic: topic, data: message[1]).decode(DeviceDeletedEvent.self) {
                    authenticator.deleted.insert(deleted.body.registrationID)
                }
            }
            try? sink.send(message, wait: false)
        }
    }
}
