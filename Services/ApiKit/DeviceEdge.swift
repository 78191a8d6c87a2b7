import Foundation
import Credentials
import HTTP
import JSON
import Runtime
import Schema
import Signing
import Synchronization

/// The device edge (DESIGN.md, "The device edge"): `POST /v1/device/<command>` relays the body and
/// the `X-PushBus-Proof` header to the gateway unchanged, as the MDP request `[command, body,
/// proof]` to `device`, and answers 200 with the bus reply. It signs nothing and holds no secret:
/// the gateway checks the device exactly as on the bus. What the bus never sees is refused here:
/// 404 a command a device does not send, 405 another method, 400 a body that is not one JSON object
/// or a malformed proof, 413 too large, 429 over a rate (unsigned registrations per client address,
/// requests per connection), 503 no answer. Runs on the HTTP server's loop thread and never
/// blocks it: the bus answers on its own thread, which answers the waiting connection.
public final class DeviceEdge: Sendable {
    /// The edge's limits, from the api's flags.
    public struct Settings: Sendable {
        /// Largest body taken (the bus takes at most its own `--max-request-bytes`).
        public var maxBodyBytes = 64 << 10
        /// Unsigned `device.register` per client address: a second's worth, and the burst.
        public var registerRate = 5
        public var registerBurst = 20
        /// Requests one connection may send a second (its burst is twice that).
        public var connectionRate = 50
        /// The peers whose `X-Forwarded-For` names the client (TLS proxies, load balancers).
        public var trustedProxies = AddressRanges()

        public init() {}
    }

    public static let pathPrefix = "/v1/device/"
    public static let proofHeader = "X-PushBus-Proof"

    private let bus: BusLink
    private let settings: Settings
    private let limits: Mutex<(registrations: TokenBuckets<PeerKey>, connections: TokenBuckets<String>)>
    private let logger: Logger

    public init(bus: BusLink, settings: Settings, logger: Logger) {
        self.bus = bus
        self.settings = settings
        self.logger = logger
        limits = Mutex((TokenBuckets(perSecond: settings.registerRate, burst: settings.registerBurst),
                        TokenBuckets(perSecond: settings.connectionRate, burst: 2 * settings.connectionRate)))
    }

    /// Whether `path` is the edge's.
    public static func serves(_ path: String) -> Bool { path.hasPrefix(pathPrefix) }

    /// The commands a device sends (`SigningPolicy.isDeviceCommand`), `device.register` among them.
    static func deviceCommand(_ name: Substring) -> Command? {
        guard let command = Command(rawValue: String(name)), SigningPolicy.isDeviceCommand(command) else { return nil }
        return command
    }

    /// Answers `request` through `responder`, now or once the bus has.
    public func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        switch admit(request) {
        case .refused(let status, let code, let message, let headers):
            responder.respond(Self.answer(status, WireCodec.errorReply(CommandError(code, message)), headers))
        case .relay(let body):
            bus.relay(body) { reply in
                guard let reply else {
                    return responder.respond(Self.answer(503, WireCodec.errorReply(CommandError(.timeout, "the backend did not answer in time, retry")), []))
                }
                responder.respond(Self.answer(200, reply, []))
            }
        }
    }

    enum Admission {
        case relay([Data])
        case refused(status: Int, code: ResultCode, message: String, headers: [(name: String, value: String)])
    }

    /// What to do with `request`: the MDP body to relay, or the refusal. The checks that cost
    /// nothing come first, so a flood of junk is turned away before any is parsed.
    func admit(_ request: HTTPRequest) -> Admission {
        let name = request.path.dropFirst(Self.pathPrefix.count)
        guard let command = Self.deviceCommand(name) else {
            return .refused(status: 404, code: .invalidRequest, message: "no such device command", headers: [])
        }
        guard request.method == "POST" else {
            return .refused(status: 405, code: .invalidRequest, message: "device commands are POST", headers: [("Allow", "POST")])
        }
        let connection = "\(request.peer):\(request.peerPort)"
        guard limits.withLock({ $0.connections.allow(connection, now: Clock.milliseconds()) }) else {
            return .refused(status: 429, code: .tooFrequent, message: "more than \(settings.connectionRate) requests a second on one connection, slow down",
                            headers: [("Retry-After", "1")])
        }
        guard !request.bodyTooLarge, request.body.count <= settings.maxBodyBytes else {
            return .refused(status: 413, code: .invalidRequest, message: "the body is over the \(settings.maxBodyBytes)-byte limit", headers: [])
        }
        guard case .object? = try? JSONTreeDecoder().decode(JSONValue.self, from: request.body) else {
            return .refused(status: 400, code: .invalidRequest, message: "the body must be one JSON object", headers: [])
        }
        var body = [Data(command.name.utf8), request.body]
        if let proof = request.header(Self.proofHeader) {
            guard Proof.looksLikeDeviceFrame(proof) else {
                return .refused(status: 400, code: .invalidRequest, message: "\(Self.proofHeader) is not a device's proof (v1 device:<registration_id> <hex HMAC>)", headers: [])
            }
            body.append(Data(proof.utf8))
        } else if command == .deviceRegister {
            // The one command without a proof: limited by the client's address, here, because the
            // gateway sees only the edge's (it trusts its edges by --edge-peers and does not limit them).
            let client = Self.clientAddress(request, trusting: settings.trustedProxies)
            guard settings.registerRate == 0 || limits.withLock({ $0.registrations.allow(PeerKey(address: client), now: Clock.milliseconds()) }) else {
                return .refused(status: 429, code: .tooFrequent,
                                message: "more than \(settings.registerRate) unsigned registrations a second from this address, slow down",
                                headers: [("Retry-After", "1")])
            }
        }
        return .relay(body)
    }

    /// The client's address: the connection's peer, or, when that peer is a trusted proxy, the
    /// nearest address of `X-Forwarded-For` that is not one (the entries a client writes itself
    /// come first, so only those the trusted proxies appended are believed).
    /// Every `X-Forwarded-For` line counts, in order: a proxy may append a line of its own rather than
    /// extend the client's, and the client's own line must not then be the one believed.
    static func clientAddress(_ request: HTTPRequest, trusting proxies: AddressRanges) -> String {
        guard proxies.contains(request.peer) else { return request.peer }
        let lines = request.headers.filter { $0.name.caseInsensitiveCompare("X-Forwarded-For") == .orderedSame }.map(\.value)
        let hops = lines.joined(separator: ",").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for hop in hops.reversed() where !proxies.contains(hop) { return hop }
        return hops.first ?? request.peer
    }

    private static func answer(_ status: Int, _ body: Data, _ headers: [(name: String, value: String)]) -> HTTPResponse {
        HTTPResponse(status: status, body: body, headers: [("Content-Type", "application/json; charset=utf-8")] + headers)
    }
}
