import Caches
import Foundation
import HTTP2Client
import JSON
import Schema
import Synchronization

/// Delivers notifications to APNs over HTTP/2: every notification a stream on a kept connection
/// (the client keeps its own per origin, production and sandbox), with the headers APNs reads, and
/// each answer read back (status, `reason`, 410's `timestamp`, `retry-after`). Notifications
/// answered `ExpiredProviderToken` are signed anew and sent once more. Nothing here blocks: `send`
/// hands the streams to the client's loop and the completion runs there once every stream has
/// ended; a stream still open on a live connection is waited for (up to the stream timeout), never
/// given up on by a batch deadline.
final class ApnsSender: Sendable {
    private let settings: ApnsSettings
    private let tokens = ProviderTokens()
    private let client: HTTP2Client
    /// The notifications this sender has in flight (false) or got APNs' 200 for (true) lately, by
    /// apns-id (one per message and device, the same in every attempt): one sent again (push got no
    /// answer for it: the gateway took this sender for lost while it was busy, say) is answered from
    /// here, `InFlight` or sent, rather than sent to APNs twice. Kept 5 to 10 minutes; about 40
    /// bytes a notification.
    private let recent = Mutex(RotatingDictionary<RecentID, Bool>(period: 300))

    /// An apns-id as the key of `recent`: its 128 bits, read from the UUID's text by hand
    /// (Foundation's `UUID(uuidString:)` parses with `sscanf`, a tenth of the sender's CPU).
    struct RecentID: Hashable {
        let high: UInt64
        let low: UInt64

        /// nil unless `text` is a UUID's 36 characters (8-4-4-4-12 hex digits, either case).
        init?(_ text: String) {
            var high: UInt64 = 0, low: UInt64 = 0, digits = 0, index = 0
            for byte in text.utf8 {
                defer { index += 1 }
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let nibble: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                if digits < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
                digits += 1
            }
            guard index == 36, digits == 32 else { return nil }
            self.high = high
            self.low = low
        }
    }

    init(settings: ApnsSettings) throws {
        self.settings = settings
        var options = HTTP2Options(caFile: settings.caFile, maxConnections: settings.connections, maxStreams: settings.maxStreams,
                                   streamTimeout: Double(settings.streamTimeoutSeconds), sendTimeout: Double(settings.requestTimeoutSeconds))
        options.responseHeaders = Self.headersRead
        client = try HTTP2Client(options: options)
    }

    /// Sends `notifications` signed with `key`'s provider token in `lane` (one per app, so the
    /// client shares its streams fairly between apps); `completion` gets one result per
    /// notification, in order, on the client's loop. Throws, sending nothing, when the key cannot sign.
    func send(_ notifications: [ApnsNotification], key: ApnsKey, lane: String,
              completion: @escaping @Sendable ([ApnsResult]) -> Void) throws {
        let authorization = try tokens.authorization(key)
        let ids = notifications.map { $0.apnsID.flatMap(RecentID.init) }
        let (known, fresh) = triage(notifications, ids: ids)
        guard !fresh.isEmpty else { return completion(known.map { $0! }) }
        var bodies = Bodies()
        client.send(fresh.map { request(notifications[$0], authorization: authorization, bodies: &bodies) }, lane: lane) { [self] responses in
            var results = known
            for (index, response) in zip(fresh, responses) { results[index] = Self.result(notifications[index].id, response) }
            let expired = fresh.filter { results[$0]?.status == 403 && results[$0]?.reason == "ExpiredProviderToken" }
            guard !expired.isEmpty, let renewed = try? tokens.renew(key) else { return finish(notifications, ids, fresh, results, completion) }
            let first = results
            var bodies = Bodies()
            client.send(expired.map { request(notifications[$0], authorization: renewed, bodies: &bodies) }, lane: lane) { [self] again in
                var final = first
                for (index, response) in zip(expired, again) { final[index] = Self.result(notifications[index].id, response) }
                finish(notifications, ids, fresh, final, completion)
            }
        }
    }

    /// Splits a batch into the results already known (an apns-id sent lately, or in flight now) and
    /// the indices to send, which are noted in flight.
    private func triage(_ notifications: [ApnsNotification], ids: [RecentID?]) -> (known: [ApnsResult?], fresh: [Int]) {
        let now = Int64(Date().timeIntervalSince1970)
        var known = [ApnsResult?](repeating: nil, count: notifications.count)
        var fresh: [Int] = []
        recent.withLock { recent in
            for (index, n) in notifications.enumerated() {
                guard let id = ids[index] else {
                    fresh.append(index)
                    continue
                }
                switch recent[id] {
                case true?: known[index] = ApnsResult(id: n.id, status: 200)
                case false?: known[index] = ApnsResult(id: n.id, status: 0, reason: Self.inFlight)
                case nil:
                    recent.update(id, now: now, make: { false }) { $0 = false }
                    fresh.append(index)
                }
            }
        }
        return (known, fresh)
    }

    /// Notes what APNs answered for the notifications sent (200: sent; anything else may be sent
    /// again) and completes the batch.
    private func finish(_ notifications: [ApnsNotification], _ ids: [RecentID?], _ fresh: [Int], _ results: [ApnsResult?],
                        _ completion: @Sendable ([ApnsResult]) -> Void) {
        let now = Int64(Date().timeIntervalSince1970)
        recent.withLock { recent in
            for index in fresh {
                guard let id = ids[index] else { continue }
                if results[index]?.status == 200 { recent.update(id, now: now, make: { true }) { $0 = true } } else { recent.removeValue(forKey: id) }
            }
        }
        completion(results.enumerated().map { $1 ?? ApnsResult(id: notifications[$0].id, status: 0, reason: "NotSent") })
    }

    /// The reason of a notification this sender already has in flight under the same apns-id.
    static let inFlight = "InFlight"

    /// Ends the client: streams still open end Lost, waiting ones NotSent, and their completions run.
    func stop() { client.stop() }

    /// The bodies of one batch's requests: the payload its notifications share is one `Data`, made
    /// once; shared only by the same bytes (by `==`, "é" and "e" with a combining acute are one).
    struct Bodies {
        private var last: (payload: String, body: Data)?
        mutating func body(_ payload: String) -> Data {
            if let last, last.payload.hasSameBytes(as: payload) { return last.body }
            let body = Data(payload.utf8)
            last = (payload, body)
            return body
        }
    }

    private func request(_ n: ApnsNotification, authorization: String, bodies: inout Bodies) -> HTTP2Request {
        Self.request(n, base: settings.baseURL(production: n.production), authorization: authorization, body: bodies.body(n.payload))
    }

    static func request(_ n: ApnsNotification, base: String, authorization: String, body: Data? = nil) -> HTTP2Request {
        var headers: [(name: String, value: String)] = [
            ("authorization", authorization),
            ("apns-topic", n.topic),
            ("apns-push-type", n.pushType),
            ("apns-priority", String(n.priority)),
            ("content-type", "application/json"),
            // The same id for every attempt at one (message, device): APNs and the device see one notification.
            ("apns-id", n.apnsID ?? UUID().uuidString.lowercased()),
        ]
        if let expiration = n.expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapse = n.collapseID { headers.append(("apns-collapse-id", collapse)) }
        return HTTP2Request(method: "POST", url: "\(base)/3/device/\(n.token)", headers: headers, body: body ?? Data(n.payload.utf8),
                            unindexed: Self.perNotification)
    }

    /// The response headers `result` reads.
    static let headersRead = ["retry-after"]

    /// What differs from one notification to the next (the device token in the path, the apns-id),
    /// kept out of HPACK's table so the headers every notification repeats stay in it.
    static let perNotification = [":path", "apns-id"]

    static func result(_ id: String, _ response: HTTP2Response) -> ApnsResult {
        switch response.failure {
        case .notSent?: return ApnsResult(id: id, status: 0, reason: "NotSent")
        case .lost?: return ApnsResult(id: id, status: 0, reason: "Lost")
        case nil: break
        }
        guard response.status != 0 else { return ApnsResult(id: id, status: 0, reason: "Lost") }
        guard response.status != 200 else { return ApnsResult(id: id, status: 200) }
        let body = try? JSONTreeDecoder().decode(JSONValue.self, from: response.body)
        let timestamp = body?["timestamp"]?.number.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        return ApnsResult(id: id, status: response.status, reason: body?["reason"]?.string.map { String($0.prefix(64)) }, timestamp: timestamp,
                          retryAfter: response.headers["retry-after"].flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 ? min($0, 3600) : nil })
    }
}
