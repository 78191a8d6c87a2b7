import Credentials
import Foundation
import Schema
import SQLite
import Worker

/// The `apns` service: a stateless sender. Takes `apns.send` from the push service (through the
/// gateway, which admits only PushBus's own services to it) and answers each notification's fate.
/// Its storage is an in-memory database the worker needs for its loop; nothing is kept.
public final class ApnsHandler: RequestHandler {
    public let service = Service.apns
    public let storage: ServiceStorage
    private let sender: ApnsSender
    static let maxNotifications = 1000

    public init(settings: ApnsSettings, publisher: String = "apns") throws {
        storage = try ServiceStorage(path: ":memory:", migrations: [], publisher: publisher)
        sender = ApnsSender(settings: settings)
    }

    public func setKeepAlive(_ keepAlive: @escaping () -> Void) { sender.keepAlive = keepAlive }

    public func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        switch command {
        case .apnsSend: try send(request.decode(ApnsSend.self), by: request.principal)
        default: throw notHandled(command)
        }
    }

    func send(_ p: ApnsSend, by principal: Principal?) throws -> ApnsSent {
        guard case .service? = principal else {
            throw CommandError(.appKeyInvalid, "apns.send is PushBus's own: only its services may call it")
        }
        guard let key = p.credentials else { throw CommandError.empty("credentials is missing") }
        guard let notifications = p.notifications, !notifications.isEmpty else { throw CommandError.empty("notifications is missing or empty") }
        guard notifications.count <= Self.maxNotifications else {
            throw CommandError.invalid("notifications holds \(notifications.count), at most \(Self.maxNotifications)")
        }
        for n in notifications {
            guard !n.token.isEmpty, n.token.utf8.count <= 1024, n.token.utf8.allSatisfy(Self.isHex) else {
                throw CommandError.invalid("notification \(n.id.prefix(64)) has a token that is not hex")
            }
            // Header values: a line break would smuggle a header of its own, a space at an end breaks the stream.
            for value in [n.topic, n.pushType] + (n.collapseID.map { [$0] } ?? []) where !HeaderValue.isValid(value) {
                throw CommandError.invalid("notification \(n.id.prefix(64)) has a header value that is not printable ASCII")
            }
        }
        do {
            return ApnsSent(results: try sender.send(notifications, key: key))
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError.invalid("the app's APNs key cannot sign: \(error)")
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }
}
