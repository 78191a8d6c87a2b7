import Foundation
import HTTP2Client
import JSON
import Schema

/// Delivers one app's notifications to APNs over HTTP/2: every notification a stream on a kept
/// connection (one client per endpoint, production and sandbox), with the headers APNs reads, and
/// each answer read back (status, `reason`, 410's `timestamp`, `retry-after`). A batch answered
/// `ExpiredProviderToken` is signed anew and those notifications sent once more. A call blocks
/// until every stream of the batch has ended: a stream still open on a live connection is waited
/// for (up to the client's stream timeout), never given up on by a batch deadline.
final class ApnsSender {
    private let settings: ApnsSettings
    private let tokens = ProviderTokens()
    private var clients: [String: HTTP2Client] = [:]
    /// Called while waiting on APNs, so the worker keeps its heartbeat.
    var keepAlive: () -> Void = {}

    init(settings: ApnsSettings) { self.settings = settings }

    func send(_ notifications: [ApnsNotification], key: ApnsKey) throws -> [ApnsResult] {
        var results = try attempt(notifications, key: key)
        let expired = results.indices.filter { results[$0].status == 403 && results[$0].reason == "ExpiredProviderToken" }
        if !expired.isEmpty {
            tokens.expire(key)
            let again = try attempt(expired.map { notifications[$0] }, key: key)
            for (index, result) in zip(expired, again) { results[index] = result }
        }
        return results
    }

    private func attempt(_ notifications: [ApnsNotification], key: ApnsKey) throws -> [ApnsResult] {
        let authorization = try tokens.authorization(key)
        var results = [ApnsResult?](repeating: nil, count: notifications.count)
        // Production and sandbox devices go to different hosts, each over its own connection.
        for production in [true, false] {
            let indices = notifications.indices.filter { notifications[$0].production == production }
            guard !indices.isEmpty else { continue }
            let base = settings.baseURL(production: production)
            let requests = indices.map { Self.request(notifications[$0], base: base, authorization: authorization) }
            let responses = try client(for: base).sendAndWait(requests, lane: "\(key.teamID).\(key.keyID)", meanwhile: keepAlive)
            for (index, response) in zip(indices, responses) { results[index] = Self.result(notifications[index].id, response) }
        }
        return results.enumerated().map { $1 ?? ApnsResult(id: notifications[$0].id, status: 0, reason: "NotSent") }
    }

    private func client(for base: String) throws -> HTTP2Client {
        if let client = clients[base] { return client }
        // A request that cannot be written within the batch timeout is reported NotSent (safe to
        // retry); one written waits for its answer up to the stream timeout.
        let client = try HTTP2Client(options: HTTP2Options(caFile: settings.caFile, maxStreams: settings.maxStreams,
                                                           sendTimeout: Double(settings.requestTimeoutSeconds)))
        clients[base] = client
        return client
    }

    static func request(_ n: ApnsNotification, base: String, authorization: String) -> HTTP2Request {
        var headers: [(name: String, value: String)] = [
            ("authorization", authorization),
            ("apns-topic", n.topic),
            ("apns-push-type", n.pushType),
            ("apns-priority", String(n.priority)),
            ("content-type", "application/json"),
            ("apns-id", UUID().uuidString.lowercased()),
        ]
        if let expiration = n.expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapse = n.collapseID { headers.append(("apns-collapse-id", collapse)) }
        return HTTP2Request(method: "POST", url: "\(base)/3/device/\(n.token)", headers: headers, body: Data(n.payload.utf8))
    }

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
