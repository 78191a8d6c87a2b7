import Foundation

/// One app's connection to PushBus: the registration, and every command the seeds' API sends, each
/// signed by the device, in the order called, on a queue of its own that may wait on the network.
/// A command the server does not answer (no connection, 503, code 6002) is tried again with backoff
/// and jitter, signed anew each time, and the ones after it wait, so they stay in order; every
/// completion is called exactly once, on the main queue unless `callbackQueue` says otherwise.
public final class PushBusClient: @unchecked Sendable {
    public let configuration: PushBusConfiguration
    /// Where completions run.
    public var callbackQueue = DispatchQueue.main
    /// Called once when the server says this device was deleted: the SDK has stopped and forgotten it.
    public var onDeviceDeleted: (() -> Void)?
    /// Requests sent to the edge so far (each try counts): what validation in the SDK spares.
    public private(set) var requestsSent = 0
    /// A live message (`kind` `message`, `inapp` or `reminder`, with its fields): called on the
    /// callback queue, once per msg_id, and acknowledged to the server once it returns.
    public var onMessage: (([String: Any]) -> Void)?
    /// By kind, as the seed's delegates split them, each called after `onMessage`: a custom message
    /// (`kMTCNetworkDidReceiveMessageNotification`), an in-app message (`mtPushInAppMessageDidShow`,
    /// the app shows it), an in-app notification for a device whose notifications are off
    /// (`mtPushNotiInMessageDidShowWithContent`).
    public var onCustomMessage: (([String: Any]) -> Void)?
    public var onInAppMessage: (([String: Any]) -> Void)?
    public var onReminder: (([String: Any]) -> Void)?
    /// The channel stopped by itself: `replaced` (this device connected elsewhere), `refused`
    /// (its proof), `deleted`.
    public var onChannelStopped: ((String) -> Void)?
    private var channel: LiveChannel?
    /// How MA's events are reported (under `lock`, as the state; the events wait in the state).
    var reportInterval = 10
    var maxEventCacheCount = 50
    var utmProperties: [String: Any] = [:]
    var sessionTimeout: Int?
    var collectControl = MACollectControl()
    var flushScheduled = false

    /// Runs `body` on the state under the lock; `save` writes the file when it changed, synced to the
    /// disk unless `synced` is false (an analytics event: the write survives the app, not a power loss).
    @discardableResult
    func withState<T>(save: Bool = false, synced: Bool = true, _ body: (inout DeviceState) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        let result = body(&state)
        if save { try? state.save(to: stateURL, synced: synced) }
        return result
    }

    private let transport: DeviceTransport
    private let queue = DispatchQueue(label: "pushbus.sdk.commands")
    private let stateURL: URL
    /// The state directory's lock, held until `close` or the client's end (-1 once released).
    private var stateLock: Int32
    /// The device's state, read and changed under `lock`, never held across I/O: the app's thread
    /// reads it at once even while the command queue waits out a failing server.
    private var state: DeviceState
    private let lock = NSLock()
    private var registrationWaiters: [(Int, String?) -> Void] = []
    /// How long a failed try waits before the next: from `retryMin`, doubling up to `retryMax`.
    var retryMin = 0.5
    var retryMax = 30.0

    /// `transport` defaults to `SocketTransport` on Linux and `URLSessionTransport` elsewhere.
    public init(configuration: PushBusConfiguration, transport: DeviceTransport? = nil) throws {
        self.configuration = configuration
        #if os(Linux)
        self.transport = try transport ?? SocketTransport(server: configuration.server, caFile: configuration.caFile)
        #else
        self.transport = transport ?? URLSessionTransport(server: configuration.server)
        #endif
        stateURL = configuration.stateDirectory.appendingPathComponent("pushbus-device.json")
        // One client at a time keeps a state directory: two would each rewrite the file from their
        // own memory, losing the other's journal and sending its commands twice.
        stateLock = try DeviceState.lock(configuration.stateDirectory)
        state = try DeviceState.load(from: stateURL) ?? DeviceState(deviceID: UUID().uuidString.lowercased())
        // What the last launch left unanswered goes first, in its order; its callbacks went with it.
        // An entry that cannot be read again is dropped, not kept forever.
        var unreadable: [String] = []
        for entry in state.journal {
            guard let fields = (try? JSONSerialization.jsonObject(with: entry.fields)) as? [String: Any] else {
                unreadable.append(entry.id)
                continue
            }
            queue.async { [self] in _ = run(entry.command, fields, journalID: entry.id) }
        }
        if !unreadable.isEmpty {
            PushBusLog.say(.error, "\(unreadable.count) unreadable command(s) of the last launch dropped")
            withState(save: true) { $0.journal.removeAll { unreadable.contains($0.id) } }
        }
        if !state.events.isEmpty { scheduleFlush() }
    }

    /// Commands that only read: not kept for the next launch (their answer is for this one).
    static let reads: Set<String> = ["tags.get", "tags.valid", "alias.get", "badge.get", "local.find", "channel.status", "ma.profile", "device.get"]

    deinit { DeviceState.unlock(stateLock) }

    /// Ends this client (an app switching accounts, a relaunch in a test): the channel closes, the
    /// commands already made are answered first, and the state directory is free for another
    /// client. Not to be used after.
    public func close() {
        disconnectChannel()
        queue.sync {}
        let fd = withState { _ -> Int32 in
            defer { stateLock = -1 }
            return stateLock
        }
        DeviceState.unlock(fd)
    }

    // MARK: registration

    /// The registration ID once registered (nil before, and after the device was deleted).
    public var registrationID: String? { withState { $0.deleted ? nil : $0.registrationID } }

    /// Registers the install (unsigned the first time; signed by the device after, which keeps its
    /// registration ID) with `apnsToken` when given. Queued before any command that follows.
    public func register(apnsToken: Data? = nil, completion: ((Int, String?) -> Void)? = nil) {
        queue.async { [self] in
            if let apnsToken { withState { $0.apnsToken = apnsToken.hexString } }
            let code = registerNow()
            let id = registrationID
            deliver { completion?(code, id) }
        }
    }

    /// The seed's `registrationIDCompletionHandler:`: the ID once the registration has answered.
    public func registrationIDCompletionHandler(_ completion: @escaping (Int, String?) -> Void) {
        queue.async { [self] in
            if withState({ $0.deleted }) { return deliver { completion(PushBusCode.appKeyInvalid, nil) } }
            if let id = registrationID { return deliver { completion(PushBusCode.success, id) } }
            let code = registerNow()
            let id = registrationID
            deliver { completion(code, id) }
        }
    }

    /// On the queue: `device.register`, tried until the server answers; the code it answered.
    private func registerNow() -> Int {
        let current = withState { $0 }
        guard !current.deleted else { return PushBusCode.appKeyInvalid }
        var fields: [String: Any] = ["app_key": configuration.appKey, "platform": "ios", "device_id": current.deviceID,
                                     "apns_production": configuration.isProduction, "sdk_version": configuration.sdkVersion]
        if let token = current.apnsToken { fields["apns_token"] = token }
        if let id = current.registrationID { fields["registration_id"] = id }
        let reply = send("device.register", fields, signed: current.registrationID != nil)
        let code = reply["code"] as? Int ?? PushBusCode.unknownError
        if code == PushBusCode.success, let id = reply["registration_id"] as? String {
            withState(save: true) { state in
                state.registrationID = id
                if let secret = reply["device_secret"] as? String { state.deviceSecret = secret }
            }
        }
        return code
    }

    // MARK: commands

    /// Sends `command` with `fields` (plus `app_key`, `registration_id`, `ts`, `nonce`), signed by
    /// the device, registering first if it is not yet; `completion` gets the reply on the callback
    /// queue (`code` always present).
    func perform(_ command: String, _ fields: [String: Any], completion: @escaping ([String: Any]) -> Void) {
        perform(command, building: { _ in [fields] }) { replies in completion(replies[0]) }
    }

    /// As `perform`, for the commands `build` makes of the state in the write that journals them (MA's
    /// events leave the state as the commands carrying them enter the journal); `completion` gets
    /// their replies in order, once all are answered (none when `build` made none).
    func perform(_ command: String, building build: @escaping (inout DeviceState) -> [[String: Any]],
                 completion: @escaping ([[String: Any]]) -> Void) {
        // A command that changes something is journaled before it is queued: if the app ends before
        // the server answers, the next launch sends it (at least once: one answered just before the
        // end, its answer lost, goes again). It leaves the journal before its completion is called.
        let journaled = !Self.reads.contains(command)
        let entries = withState(save: journaled) { state -> [(fields: [String: Any], id: String?)] in
            build(&state).map { fields in
                guard journaled, let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return (fields, nil) }
                let id = UUID().uuidString
                state.journal.append(DeviceState.JournalEntry(id: id, command: command, fields: data))
                return (fields, id)
            }
        }
        queue.async { [self] in
            let replies = entries.map { entry in run(command, entry.fields, journalID: entry.id) }
            deliver { completion(replies) }
        }
    }

    /// On the queue: one command, registering first if needed; its reply, once it is out of the journal.
    private func run(_ command: String, _ fields: [String: Any], journalID: String?) -> [String: Any] {
        let reply = answer(command, fields)
        if let journalID { withState(save: true) { $0.journal.removeAll { $0.id == journalID } } }
        return reply
    }

    private func answer(_ command: String, _ fields: [String: Any]) -> [String: Any] {
        if withState({ $0.deleted }) { return ["code": PushBusCode.appKeyInvalid, "message": "device deleted"] }
        if registrationID == nil {
            let code = registerNow()
            guard code == PushBusCode.success else { return ["code": code] }
        }
        var payload = fields
        payload["app_key"] = configuration.appKey
        payload["registration_id"] = registrationID
        return send(command, payload, signed: true)
    }

    /// Commands made and not yet answered (they survive the app's end).
    public var unansweredCommands: Int { withState { $0.journal.count } }

    /// Answers `completion` with `code` on the callback queue, without sending anything (a refusal
    /// of the SDK's own checks), after the commands already queued, so completions stay in order.
    func refuse(_ code: Int, completion: @escaping ([String: Any]) -> Void) {
        queue.async { [self] in deliver { completion(["code": code]) } }
    }

    /// On the queue: one command until the server answers it. Each try is stamped and signed anew.
    private func send(_ command: String, _ fields: [String: Any], signed: Bool) -> [String: Any] {
        var delay = retryMin
        while true {
            var payload = fields
            if signed {
                payload["ts"] = Int(Date().timeIntervalSince1970)
                payload["nonce"] = Signature.nonce()
            }
            guard let body = try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]) else {
                return ["code": PushBusCode.invalidRequest, "message": "the payload is not JSON"]
            }
            let keys = withState { ($0.registrationID, $0.deviceSecret) }
            let proof: String? = signed ? keys.0.flatMap { id in
                keys.1.map { Signature.proof(registrationID: id, secret: $0, command: command, payload: body) }
            } : nil
            requestsSent += 1
            // 503 (the bus did not answer) and 429 (the edge's own rate, e.g. registrations from one
            // address) are the server's "later": tried again. A 6011 the bus answers is the seed's code.
            if let answer = try? transport.post(command: command, payload: body, proof: proof), answer.status != 503, answer.status != 429,
               let reply = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any], let code = reply["code"] as? Int,
               code != PushBusCode.timeout {
                if code == PushBusCode.appKeyInvalid, (reply["message"] as? String)?.contains("deleted") == true { forget() }
                return reply
            }
            // No answer, or the backend's "retry": wait, then try again.
            PushBusLog.say(.debug, "\(command): no answer from \(configuration.server), again in \(String(format: "%.1f", delay)) s")
            Thread.sleep(forTimeInterval: delay * Double.random(in: 0.75...1.25))
            delay = min(retryMax, delay * 2)
        }
    }

    /// The server deleted this device: stop, forget its credentials, tell the app once.
    private func forget() {
        let first = withState(save: true) { state -> Bool in
            guard !state.deleted else { return false }
            state.deleted = true
            state.registrationID = nil
            state.deviceSecret = nil
            return true
        }
        guard first else { return }
        let handler = onDeviceDeleted
        deliver { handler?() }
    }

    private func deliver(_ work: @escaping () -> Void) { callbackQueue.async(execute: work) }

    // MARK: state the extensions keep

    /// The device's channel subscriptions (TikPush), read at once from its state.
    var subscriptions: [DeviceState.Subscription] { withState { $0.subscriptions } }

    /// Changes the subscriptions and saves them.
    func updateSubscriptions(_ change: (inout [DeviceState.Subscription]) -> Void) {
        withState(save: true) { change(&$0.subscriptions) }
    }

    // MARK: the live channel

    /// Opens the device channel (the app came to the foreground): registers first if needed, then
    /// holds the connection, reconnecting as it drops, until `disconnectChannel`.
    public func connectChannel() {
        guard let url = configuration.channelURL else { return }
        queue.async { [self] in
            guard withState({ _ in channel == nil }), !withState({ $0.deleted }) else { return }
            if registrationID == nil, registerNow() != PushBusCode.success { return }
            #if os(Linux)
            let context = url.scheme?.lowercased() == "wss" ? try? TLSSocket.Context.shared(caFile: configuration.caFile) : nil
            let make: () throws -> ChannelConnection = { try SocketChannelConnection(url: url, context: context, readTimeout: 1) }
            #else
            let make: () throws -> ChannelConnection = { try URLSessionChannelConnection(url: url) }
            #endif
            weak var client = self
            let live = LiveChannel(url: url, makeConnection: make, hello: { client?.hello() },
                                   deliver: { message in client?.handOver(message) },
                                   seen: { id in client?.withState { $0.seenMessages.contains(id) } ?? true },
                                   remember: { id in client?.rememberMessage(id) },
                                   stopped: { stop in client?.channelStopped(stop) })
            withState { _ in channel = live }
            live.start()
        }
    }

    /// Closes the device channel (the app went to the background).
    public func disconnectChannel() {
        let current: LiveChannel? = withState { _ in
            defer { channel = nil }
            return channel
        }
        current?.stop()
    }

    /// Whether the channel is connected and welcomed now, how many connections it has made, and how
    /// many messages the server sent again that the app had already been handed (not handed twice).
    public var channelState: (open: Bool, connections: Int, repeats: Int) {
        let current = withState { _ in channel }
        return (current?.isOpen ?? false, current?.connections ?? 0, current?.repeats ?? 0)
    }

    /// The signed hello of DESIGN.md: frame 1 the payload, frame 2 the proof of "channel.hello".
    private func hello() -> (payload: String, proof: String)? {
        let (deleted, id, secret) = withState { ($0.deleted, $0.registrationID, $0.deviceSecret) }
        guard !deleted, let id, let secret else { return nil }
        let fields: [String: Any] = ["app_key": configuration.appKey, "registration_id": id, "ts": Int(Date().timeIntervalSince1970),
                                     "nonce": Signature.nonce()]
        guard let payload = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return nil }
        return (String(decoding: payload, as: UTF8.self), Signature.proof(registrationID: id, secret: secret, command: "channel.hello", payload: payload))
    }

    /// On the channel's thread: the app's handler runs (on the callback queue) before the ack goes.
    private func handOver(_ message: [String: Any]) {
        let byKind: (([String: Any]) -> Void)?
        switch message["kind"] as? String {
        case "message": byKind = onCustomMessage
        case "inapp": byKind = onInAppMessage
        case "reminder": byKind = onReminder
        default: byKind = nil
        }
        let all = onMessage
        callbackQueue.sync {
            all?(message)
            byKind?(message)
        }
    }

    private func rememberMessage(_ id: String) {
        withState(save: true) { state in
            state.seenMessages.append(id)
            if state.seenMessages.count > DeviceState.seenLimit { state.seenMessages.removeFirst(state.seenMessages.count - DeviceState.seenLimit) }
        }
    }

    private func channelStopped(_ stop: LiveChannel.Stop) {
        queue.async { [self] in
            withState { _ in channel = nil }
            switch stop {
            case .requested: return
            case .deleted: forget()
            case .replaced, .refused: break
            }
            let handler = onChannelStopped
            PushBusLog.say(.error, "the live channel stopped: \(stop)")
            let reason: String
            switch stop {
            case .replaced: reason = "replaced"
            case .refused(let code): reason = "refused \(code)"
            case .deleted: reason = "deleted"
            case .requested: reason = "requested"
            }
            deliver { handler?(reason) }
        }
    }
}
