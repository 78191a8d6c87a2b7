import Credentials
import Caches
import Foundation
import JSON
import Schema
import SQLite

/// Turns leased deliveries into `apns.send` requests: each device's final payload (its badge, the
/// msg_id), the headers its kind needs, and the app's provider key; and those that go over the
/// device channel into `live.deliver` requests. Keeps the messages and keys it read; a key is read
/// again after a minute, so a new one set with `apns.credentials` is used.
final class NotificationBuilder {
    /// A message as its notifications need it.
    struct Message: Sendable {
        let msgID: String
        let appKey: String
        let plan: PushPlan
        let createdAt: Double
    }

    /// One app's notifications, with its key.
    struct AppRequest {
        let appKey: String
        let key: ApnsKey
        var notifications: [ApnsNotification] = []
        var deliveries: [FanoutStore.Delivery] = []

        /// Requests of at most `size` notifications and, by a bound on each one's written size, at
        /// most `maxBytes` of JSON: a hundred notifications near APNs' 4 KB limit are over the bus's
        /// 256 KiB a request, which apns refuses whole (6017), so they were never sent.
        func split(into size: Int, maxBytes: Int = Self.maxRequestBytes) -> [(request: ApnsSend, deliveries: [FanoutStore.Delivery])] {
            var requests: [(request: ApnsSend, deliveries: [FanoutStore.Delivery])] = []
            var start = 0
            while start < notifications.count {
                var end = start
                var bytes = Self.requestOverhead + key.p8.utf8.count
                while end < notifications.count, end - start < size {
                    let more = Self.boundOfWrittenSize(notifications[end])
                    guard end == start || bytes + more <= maxBytes else { break }
                    bytes += more
                    end += 1
                }
                requests.append((ApnsSend(appKey: appKey, credentials: key, notifications: Array(notifications[start..<end])),
                                 Array(deliveries[start..<end])))
                start = end
            }
            return requests
        }

        /// What an `apns.send` may hold, leaving room under the bus's limit (`WireCodec.maxPayloadBytes`)
        /// for the envelope.
        static let maxRequestBytes = WireCodec.maxPayloadBytes - 16 * 1024
        static let requestOverhead = 512

        /// At least the bytes `notification` takes in the request: its strings written as JSON
        /// strings, each byte at most twice (an escaped quote or backslash; the payload, itself JSON,
        /// has no raw control character), and its keys and numbers.
        static func boundOfWrittenSize(_ n: ApnsNotification) -> Int {
            let strings = [n.id, n.token, n.topic, n.pushType, n.payload, n.collapseID ?? "", n.apnsID ?? ""]
            return strings.reduce(256) { $0 + 2 * $1.utf8.count + 2 }
        }
    }

    private let credentials: CredentialStore
    /// The apns-id's key, made ready once: a builder serves one side loop's thread.
    private let apnsIDKey = HMACKey(ApnsID.secret)
    /// Shared with the expanders, which put the messages they expand.
    private let messages: MessageCache
    private var keys: [String: (key: ApnsKey, bundleID: String, readAt: Double)] = [:]
    static let keyLifetime = 60.0
    /// Each message's final payload per badge written lately: a broadcast without badges has one
    /// for all its devices, encoded once (and one string, so the batch writes it once: `ApnsCommon`).
    private var payloads: [PayloadKey: String] = [:]
    private struct PayloadKey: Hashable {
        let message: Int64
        let badge: Int?
    }
    static let payloadsKept = 4096

    init(credentials: CredentialStore, messages: MessageCache) {
        self.credentials = credentials
        self.messages = messages
    }

    /// The sender's handle of a delivery, which its result comes back with.
    static func id(of delivery: FanoutStore.Delivery) -> String { String(delivery.id) }

    /// A message read before, when still cached.
    func cached(_ id: Int64) -> Message? { messages[id] }

    /// One message's deliveries over the device channel: one `live.deliver` for all of them.
    struct ChannelRequest {
        var request: LiveDeliver
        var deliveries: [FanoutStore.Delivery]
    }

    func build(_ deliveries: [FanoutStore.Delivery], in db: Database)
        throws -> (requests: [AppRequest], channel: [ChannelRequest], unsendable: [(FanoutStore.Delivery, String)]) {
        var requests: [String: AppRequest] = [:]
        var channel: [Int64: ChannelRequest] = [:]
        var unsendable: [(FanoutStore.Delivery, String)] = []
        let now = Date().timeIntervalSince1970
        for delivery in deliveries {
            guard let message = try message(delivery.message, in: db) else {
                unsendable.append((delivery, "MessageUnreadable"))
                continue
            }
            if delivery.token == AudiencePager.channelRoute {
                channel[delivery.message, default: ChannelRequest(request: Self.liveDeliver(message, now: now), deliveries: [])]
                    .deliveries.append(delivery)
                continue
            }
            guard let app = try key(message.appKey, now: now, in: db) else {
                unsendable.append((delivery, "NoProviderKey"))
                continue
            }
            let plan = message.plan
            let kind = plan.content.kind
            let expiration = plan.options.timeToLive.map { $0 == 0 ? 0 : Int(message.createdAt) + $0 }
            let notification = ApnsNotification(
                id: Self.id(of: delivery), token: delivery.token, production: delivery.production,
                topic: kind.topic(bundleID: app.bundleID), pushType: kind.rawValue, priority: kind.priority,
                expiration: expiration, collapseID: plan.options.collapseID ?? message.msgID,
                payload: payload(of: message, id: delivery.message, badge: delivery.badge),
                apnsID: ApnsID.of(msgID: message.msgID, registrationID: delivery.registrationID, key: apnsIDKey))
            requests[message.appKey, default: AppRequest(appKey: message.appKey, key: app.key)].notifications.append(notification)
            requests[message.appKey]?.deliveries.append(delivery)
        }
        let live = channel.values.map { batch in
            var batch = batch
            batch.request.registrationIDs = batch.deliveries.map(\.registrationID)
            return batch
        }
        return (Array(requests.values), live, unsendable)
    }

    /// Keeps a message for a day when the push gives no `time_to_live` (as the public services do).
    static let defaultTimeToLive = 86_400

    /// The `live.deliver` of `message` without its devices: a message or in-app message as it is,
    /// a notification as a reminder (its `aps` and extras); kept until `time_to_live` from the push
    /// (or the in-app message's own expiry), or only for devices connected now when it is 0.
    static func liveDeliver(_ message: Message, now: Double) -> LiveDeliver {
        let content = message.plan.content
        let kind: LiveKind = switch content.kind {
        case .message: .message
        case .inapp: .inapp
        default: .reminder
        }
        let ttl = message.plan.options.timeToLive ?? defaultTimeToLive
        var expiresAt = ttl == 0 ? 0 : message.createdAt + Double(ttl)
        if let own = content.expiresAt, ttl != 0 { expiresAt = min(expiresAt, own) }
        var fields: JSONValue = content.payload
        if case .object(var object) = fields {
            object["_j_msgid"] = .string(message.msgID)
            fields = .object(object)
        }
        return LiveDeliver(appKey: message.appKey, msgID: message.msgID, kind: kind, content: fields, target: content.pages,
                           expiresAt: expiresAt, registrationIDs: [])
    }

    private func payload(of message: Message, id: Int64, badge: Int?) -> String {
        let key = PayloadKey(message: id, badge: badge)
        if let known = payloads[key] { return known }
        if payloads.count >= Self.payloadsKept { payloads.removeAll(keepingCapacity: true) }
        let payload = message.plan.content.payload(msgID: message.msgID, badge: badge)
        payloads[key] = payload
        return payload
    }

    private func message(_ id: Int64, in db: Database) throws -> Message? {
        if let known = messages[id] { return known }
        guard let row = try db.row("SELECT msg_id, app_key, plan, created_at FROM messages WHERE id = ?", id),
              let msgID = row[0].string, let appKey = row[1].string, let text = row[2].string,
              let plan = try? WireCodec.decode(PushPlan.self, from: Data(text.utf8)) else { return nil }
        let message = Message(msgID: msgID, appKey: appKey, plan: plan, createdAt: row[3].double ?? 0)
        messages.keep(message, id: id)
        return message
    }

    private func key(_ appKey: String, now: Double, in db: Database) throws -> (key: ApnsKey, bundleID: String)? {
        if let known = keys[appKey], now - known.readAt < Self.keyLifetime { return (known.key, known.bundleID) }
        guard let opened = try credentials.open(db, appKey: appKey) else { return nil }
        keys[appKey] = (opened.key, opened.bundleID, now)
        return opened
    }
}
