import Credentials
import Foundation
import JSON
import Runtime
import Schema
import WebSocket
import Worker

/// The connections one channel process holds. It checks each device's hello, asks the device's
/// shard to attach it (which answers what waits for it), sends what shards push to its devices,
/// and passes the device's acknowledgements and reports on through the `Uplink`.
///
/// Its callbacks come from three threads: the WebSocket loop (frames), the uplink (answers) and
/// the worker (messages a shard committed), so its state is behind one lock; the server's `send`
/// and `close` may be called from any of them.
public final class LiveHost: WebSocketDelegate, @unchecked Sendable {
    /// Which channel process this is (its shard index) and which start of it: where its connections are.
    public let host: Int
    public let boot: String
    private let secrets: Secrets
    private let uplink: Uplink
    private let logger: Logger
    private let clock: @Sendable () -> Double
    /// Seconds a connection may take to say hello.
    let helloTimeout: Double
    /// Set once, before the server starts.
    public var server: WebSocketServer?

    private let lock = NSLock()
    private var connections: [ConnectionID: LiveConnectionState] = [:]
    private var byDevice: [String: ConnectionID] = [:]

    public init(host: Int, secrets: Secrets, uplink: Uplink, helloTimeout: Double = 10, logger: Logger,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.host = host
        boot = RandomKey.hex(bytes: 8)
        self.secrets = secrets
        self.uplink = uplink
        self.helloTimeout = helloTimeout
        self.logger = logger
        self.clock = clock
    }

    /// Devices connected and welcomed now.
    public var onlineCount: Int { locked { byDevice.count } }

    /// Close codes that say a peer broke the protocol or a limit (protocol, data, size, policy).
    static let misbehaviour: Set<UInt16> = [1002, 1003, 1007, 1008, 1009]

    // MARK: frames from devices

    public func opened(_ connection: ConnectionID, peer: String) {
        locked { connections[connection] = LiveConnectionState(openedAt: clock()) }
    }

    public func received(_ text: String, from connection: ConnectionID) {
        let stage = locked { connections[connection]?.stage }
        switch stage {
        case nil: return
        case .hello?:
            locked { connections[connection]?.stage = .proof(payload: text) }
        case .proof(let payload)?:
            checkHello(payload: payload, proof: text, on: connection)
        case .attaching?:
            close(connection, Hello.Refusal(code: 4400, reason: "wait for welcome before sending"))
        case .open(let hello)?:
            report(text, from: hello, on: connection)
        }
    }

    public func closed(_ connection: ConnectionID, code: UInt16, reason: String) {
        if Self.misbehaviour.contains(code) {
            logger.notice("a device connection was closed for what it did", ["connection": connection, "code": code, "reason": reason])
        }
        let hello: Hello? = locked {
            guard var state = connections[connection] else { return nil }
            switch state.stage {
            case .attaching:
                // The shard has not answered the attach yet: the detach follows its answer, or it
                // could overtake the attach on another of the uplink's clients.
                state.closedWhileAttaching = true
                connections[connection] = state
                return nil
            case .open(let hello):
                connections[connection] = nil
                if byDevice[hello.registrationID] == connection { byDevice[hello.registrationID] = nil }
                return hello
            default:
                connections[connection] = nil
                return nil
            }
        }
        if let hello {
            flushAcknowledgements()
            detach(hello, connection)
        }
    }

    private func checkHello(payload: String, proof: String, on connection: ConnectionID) {
        let hello: Hello
        do { hello = try Hello(payload: payload, proof: proof, secrets: secrets, now: clock(), window: Double(ProofLedger.window)) } catch {
            close(connection, error)
            return
        }
        locked { connections[connection]?.stage = .attaching(hello) }
        attach(hello, connection, attempt: 1)
    }

    /// Times an attach the gateway answers 6002 (the shard's worker was lost, or busy) is sent.
    static let attachAttempts = 3

    private func attach(_ hello: Hello, _ connection: ConnectionID, attempt: Int) {
        let attach = LiveAttach(appKey: hello.appKey, registrationID: hello.registrationID, at: at(connection), proof: hello.signature,
                                helloTS: hello.ts)
        uplink.enqueue(.liveAttach, attach, lane: .urgent) { [weak self] reply in self?.attached(hello, connection, reply, attempt: attempt) }
    }

    /// The shard's answer to an attach: welcome and what waits, or a close with the refusal.
    private func attached(_ hello: Hello, _ connection: ConnectionID, _ reply: Data?, attempt: Int) {
        let refusal: Hello.Refusal?
        var pending: [LiveEntry] = []
        var more = false
        switch reply.map({ try? WireCodec.decode(Reply<LiveAttached>.self, from: $0) }) {
        case nil, nil?: refusal = .unavailable
        case let answer??:
            if answer.code == .timeout, attempt < Self.attachAttempts {
                // The gateway gave up on the shard's worker (a restart, say): no shard saw it.
                return attach(hello, connection, attempt: attempt + 1)
            }
            if answer.code.isSuccess, let body = answer.body {
                refusal = nil
                pending = body.pending
                more = body.more
            } else if answer.code == .appKeyInvalid {
                refusal = .deleted
            } else if answer.code == .invalidRequest, answer.message?.contains("used before") == true {
                refusal = .replayed
            } else {
                refusal = Hello.Refusal(code: 4500, reason: answer.message ?? "refused")
            }
        }
        let outcome: (replaced: ConnectionID?, entries: [LiveEntry])? = locked {
            guard var state = connections[connection] else { return nil }
            if state.closedWhileAttaching || refusal != nil {
                connections[connection] = nil
                return nil
            }
            state.stage = .open(hello)
            state.backlogEnd = more ? pending.last?.msgID : nil
            let entries = state.unsent(pending + state.held)
            state.held = []
            connections[connection] = state
            let replaced = byDevice.updateValue(connection, forKey: hello.registrationID)
            return (replaced == connection ? nil : replaced, entries)
        }
        guard let outcome else {
            if let refusal { server?.close(connection, code: refusal.code, reason: refusal.reason) }
            if refusal == nil { detach(hello, connection) }
            return
        }
        if let replaced = outcome.replaced {
            server?.close(replaced, code: 4001, reason: "replaced by a newer connection")
        }
        server?.send(#"{"type":"welcome"}"#, to: connection)
        for entry in outcome.entries { server?.send(LiveFrames.message(entry), to: connection) }
    }

    /// An open connection's frame: an acknowledgement, a page change, an in-app message shown or
    /// clicked, or the notification authorization.
    private func report(_ text: String, from hello: Hello, on connection: ConnectionID) {
        let frame: LiveFrames.Report
        do { frame = try LiveFrames.report(text) } catch {
            server?.send(LiveFrames.error(error.message), to: connection)
            return
        }
        let device = (appKey: hello.appKey, registrationID: hello.registrationID)
        switch frame {
        case .request(let id, let command, let payload, let proof):
            guard locked({ connections[connection]?.takeRequest(now: clock()) ?? false }) else {
                let limit = Int(LiveConnectionState.requestsPerSecond)
                server?.send(LiveFrames.refusedRequest(id: id, CommandError(.tooFrequent, "more than \(limit) requests a second, slow down")), to: connection)
                return
            }
            // Relayed as the device sent it: the gateway checks its proof as on the bus.
            uplink.relay([Data(command.name.utf8), Data(payload.utf8), Data(proof.utf8)]) { [weak self] reply in
                self?.server?.send(LiveFrames.reply(id: id, reply), to: connection)
            }
            return
        case .badRequest(let id, let error):
            server?.send(LiveFrames.refusedRequest(id: id, error), to: connection)
            return
        case .ack(let msgIDs):
            let backlogEnd: String? = locked {
                connections[connection]?.acknowledged(msgIDs)
                guard let state = connections[connection], state.sent.isEmpty, let end = state.backlogEnd else { return nil }
                connections[connection]?.backlogEnd = nil
                return end
            }
            if let backlogEnd { askMore(hello, connection, after: backlogEnd) }
            let now: Bool = locked {
                pendingAcks[AckKey(appKey: device.appKey, msgIDs: msgIDs), default: []].append(device.registrationID)
                return acksInFlight < Self.ackRequestsAtOnce
            }
            if now { flushAcknowledgements() }
            return
        default:
            break
        }
        // Reports cost bus requests: each connection gets a few a second, acknowledgements aside.
        guard locked({ connections[connection]?.takeReport(now: clock()) ?? false }) else {
            server?.send(LiveFrames.error("too many reports: at most \(Int(LiveConnectionState.reportsPerSecond)) a second"), to: connection)
            return
        }
        switch frame {
        case .ack, .request, .badRequest: break
        case .page(let entering, let page):
            uplink.enqueue(entering ? .pageEnter : .pageLeave, PageReport(appKey: device.appKey, registrationID: device.registrationID, page: page),
                           lane: .normal)
            uplink.enqueue(.statsReport, StatsReport(appKey: device.appKey, registrationID: device.registrationID,
                                                     kind: entering ? .pageEnter : .pageLeave, page: page), lane: .bulk)
        case .inapp(let clicked, let msgID):
            uplink.enqueue(.statsReport, StatsReport(appKey: device.appKey, registrationID: device.registrationID,
                                                     kind: clicked ? .inappClick : .inappShow, msgID: msgID), lane: .bulk)
        case .authorization(let status):
            uplink.enqueue(.deviceUpdate, DeviceUpdate(appKey: device.appKey, registrationID: device.registrationID,
                                                       notificationAuthorization: status), lane: .normal)
        }
    }

    /// Acknowledgements waiting to go, by app and msg_ids: a broadcast's thousands go as a few
    /// requests, sent when an earlier one is answered.
    private struct AckKey: Hashable {
        let appKey: String
        let msgIDs: [String]
    }
    private var pendingAcks: [AckKey: [String]] = [:]
    private var acksInFlight = 0
    /// `live.ack` requests out at once: an acknowledgement goes at once when fewer are out (a
    /// device that acknowledges and reconnects elsewhere must not overtake it), and those that come
    /// meanwhile wait for an answer and go together.
    static let ackRequestsAtOnce = 2

    /// Sends the acknowledgements gathered since the last call, up to 1000 devices a request.
    func flushAcknowledgements() {
        let waiting = locked {
            defer { pendingAcks = [:] }
            return pendingAcks
        }
        for (key, devices) in waiting {
            for start in stride(from: 0, to: devices.count, by: ChannelHandler.maxDevicesPerDelivery) {
                sendAcks(key, Array(devices[start..<min(devices.count, start + ChannelHandler.maxDevicesPerDelivery)]))
            }
        }
    }

    /// One `live.ack`; each device's first acknowledgement of a message counts `received` once.
    private func sendAcks(_ key: AckKey, _ devices: [String]) {
        // Ahead of the reports, with the attachments: a device that reconnects must not get again what it acknowledged.
        locked { acksInFlight += 1 }
        uplink.enqueue(.liveAck, LiveAck(appKey: key.appKey, registrationIDs: devices, msgIDs: key.msgIDs), lane: .urgent) { [weak self, uplink] reply in
            if let self {
                let more = self.locked {
                    self.acksInFlight -= 1
                    return !self.pendingAcks.isEmpty
                }
                if more { self.flushAcknowledgements() }
            }
            guard let reply, let first = try? WireCodec.decode(Reply<LiveAcked>.self, from: reply).body?.first else { return }
            for (registrationID, msgIDs) in first {
                for msgID in msgIDs {
                    uplink.enqueue(.statsReport, StatsReport(appKey: key.appKey, registrationID: registrationID, kind: .received, msgID: msgID),
                                   lane: .bulk)
                }
            }
        }
    }

    /// The next part of the device's backlog, now that it acknowledged the last.
    private func askMore(_ hello: Hello, _ connection: ConnectionID, after: String) {
        let request = LiveMore(appKey: hello.appKey, registrationID: hello.registrationID, at: at(connection), after: after)
        uplink.enqueue(.liveMore, request, lane: .urgent) { [weak self] reply in
            guard let self, let reply, let body = try? WireCodec.decode(Reply<LiveAttached>.self, from: reply).body else { return }
            let entries: [LiveEntry] = self.locked {
                guard var state = self.connections[connection] else { return [] }
                defer { self.connections[connection] = state }
                state.backlogEnd = body.more ? body.pending.last?.msgID : nil
                return state.unsent(body.pending)
            }
            for entry in entries { self.server?.send(LiveFrames.message(entry), to: connection) }
        }
    }

    // MARK: messages from shards

    /// A shard's committed messages for connections of this process, and connections to close.
    public func apply(_ push: LivePush) {
        // A broadcast sends one frame to every device: it is written once (by msg_id and mailbox row's content).
        var frames: [String: String] = [:]
        func frame(_ entry: LiveEntry) -> String {
            if let known = frames[entry.msgID] { return known }
            let text = LiveFrames.message(entry)
            frames[entry.msgID] = text
            return text
        }
        for close in push.closes where close.at.host == host && close.at.boot == boot {
            let matches = locked { connections[ConnectionID(close.at.connection)]?.hello?.registrationID == close.registrationID }
            if matches { server?.close(ConnectionID(close.at.connection), code: UInt16(clamping: close.code), reason: close.reason) }
        }
        for send in push.sends where send.at.host == host && send.at.boot == boot {
            let connection = ConnectionID(send.at.connection)
            let entries: [LiveEntry] = locked {
                guard var state = connections[connection], state.hello?.registrationID == send.registrationID else {
                    logger.debug("messages for a connection that is gone", ["connection": connection, "registration_id": send.registrationID])
                    return []
                }
                defer { connections[connection] = state }
                if case .attaching = state.stage {
                    state.held += send.entries
                    return []
                }
                return state.unsent(send.entries)
            }
            for entry in entries { server?.send(frame(entry), to: connection) }
        }
    }

    /// Closes connections that have not said hello in time. Call every second or so.
    public func sweep() {
        let now = clock()
        let late: [ConnectionID] = locked {
            connections.filter { _, state in
                switch state.stage {
                case .hello, .proof: now - state.openedAt > helloTimeout
                default: false
                }
            }.map(\.key)
        }
        for connection in late { server?.close(connection, code: 4400, reason: "no hello in time") }
    }

    // MARK: helpers

    private func at(_ connection: ConnectionID) -> LiveConnection { LiveConnection(host: host, boot: boot, connection: connection) }

    private func detach(_ hello: Hello, _ connection: ConnectionID) {
        uplink.enqueue(.liveDetach, LiveDetach(appKey: hello.appKey, registrationID: hello.registrationID, at: at(connection)), lane: .urgent)
    }

    private func close(_ connection: ConnectionID, _ error: any Error) {
        let refusal = error as? Hello.Refusal ?? .malformed
        server?.close(connection, code: refusal.code, reason: refusal.reason)
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
