import Credentials
import Foundation
import JSON
import Schema
import Worker

/// The `apns` service: a stateless sender (no database, no transaction). Takes `apns.send` from the
/// push service (through the gateway, which admits only PushBus's own services to it), hands the
/// notifications to the HTTP/2 client at once, and answers each one's fate when APNs has answered
/// them all, while the worker goes on taking other batches.
public final class ApnsHandler: StatelessHandler {
    public let service = Service.apns
    private let sender: ApnsSender
    static let maxNotifications = 1000

    public init(settings: ApnsSettings) throws {
        sender = try ApnsSender(settings: settings)
    }

    public func handle(_ command: Command, _ request: Request, reply: @escaping @Sendable (Data) -> Void) {
        do {
            guard command == .apnsSend else { throw CommandError.invalid("\(command.name) is not handled by apns") }
            let p = try request.decode(ApnsSend.self)
            // Known from the decode: the payload (a batch of notifications) is parsed once.
            let seq = request.seq
            let (key, notifications) = try check(p, by: request.principal)
            do {
                try sender.send(notifications, key: key, lane: p.appKey ?? "\(key.teamID).\(key.keyID)") { results in
                    reply(WireCodec.successReply(ApnsSent(results: results), seq: seq))
                }
            } catch {
                throw CommandError.invalid("the app's APNs key cannot sign: the .p8 is not a P-256 private key")
            }
        } catch {
            reply(WireCodec.errorReply(error as? CommandError ?? CommandError(.internalError, "internal error"), seq: request.seq))
        }
    }

    public func close() { sender.stop() }

    /// The batch's key and notifications, checked: only PushBus's services may send, every token is
    /// hex, and no header value could smuggle a header of its own.
    func check(_ p: ApnsSend, by principal: Principal?) throws -> (ApnsKey, [ApnsNotification]) {
        guard case .service? = principal else {
            throw CommandError(.appKeyInvalid, "apns.send is PushBus's own: only its services may call it")
        }
        guard let key = p.credentials else { throw CommandError.empty("credentials is missing") }
        guard let notifications = p.notifications, !notifications.isEmpty else { throw CommandError.empty("notifications is missing or empty") }
        guard notifications.count <= Self.maxNotifications else {
            throw CommandError.invalid("notifications holds \(notifications.count), at most \(Self.maxNotifications)")
        }
        // The values a batch's notifications share (`common` on the wire) are checked once; a value
        // is known valid only by the same bytes (`==` would take a look-alike, KELVIN SIGN for "K").
        var valid: [String] = []
        func check(_ value: String, of n: ApnsNotification, shared: Bool = true) throws {
            guard !shared || !valid.contains(where: { $0.hasSameBytes(as: value) }) else { return }
            // Header values: a line break would smuggle a header of its own, a space at an end breaks the stream.
            guard HeaderValue.isValid(value) else {
                throw CommandError.invalid("notification \(n.id.prefix(64)) has a header value that is not printable ASCII")
            }
            if shared, valid.count < 8 { valid.append(value) }
        }
        for n in notifications {
            guard !n.token.isEmpty, n.token.utf8.count <= 1024, n.token.utf8.allSatisfy(Self.isHex) else {
                throw CommandError.invalid("notification \(n.id.prefix(64)) has a token that is not hex")
            }
            try check(n.topic, of: n)
            try check(n.pushType, of: n)
            if let collapseID = n.collapseID { try check(collapseID, of: n) }
            // Each notification's own: not kept among the shared values.
            if let apnsID = n.apnsID { try check(apnsID, of: n, shared: false) }
        }
        return (key, notifications)
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }
}
