import Foundation

/// The seed's `MTMAUserID`: at least one identifier.
public struct MAUserID {
    public var userID: String?
    public var anonymousID: String?
    public var email: String?
    public var phone: String?

    public init(userID: String? = nil, anonymousID: String? = nil, email: String? = nil, phone: String? = nil) {
        self.userID = userID
        self.anonymousID = anonymousID
        self.email = email
        self.phone = phone
    }

    var json: [String: Any] {
        var fields: [String: Any] = [:]
        fields["user_id"] = userID
        fields["anonymous_id"] = anonymousID
        fields["email"] = email
        fields["phone"] = phone
        return fields
    }
}

/// The seed's `MTMAInitResult`.
public struct MAInitResult {
    public let code: Int
    public let message: String
    public let euid: String?
    public var isSuccess: Bool { code == 0 }
}

/// MTMAService (seed 003): start and the EUID, identities, contacts, events (cached, reported every
/// `reportInterval` seconds or when `maxEventCacheCount` wait), user properties, channel values.
/// Each call goes in order on the SDK's queue, signed by the device; a call made before `maStart`
/// has answered is answered -2, as the seed says.
extension PushBusClient {
    /// The EUID of the last successful start, nil before.
    public var euid: String? { withState { $0.euid } }

    /// Starts MA for this install (the app's key), optionally naming the user; the result carries the EUID.
    public func maStart(user: MAUserID? = nil, completion: ((MAInitResult) -> Void)? = nil) {
        var fields: [String: Any] = ["device_id": withState { $0.deviceID }]
        if let user { fields["user"] = user.json }
        perform("ma.start", fields) { [weak self] reply in
            let euid = reply["euid"] as? String
            if let euid { self?.withState(save: true) { $0.euid = euid } }
            completion?(MAInitResult(code: Self.code(reply), message: reply["message"] as? String ?? "", euid: euid))
        }
    }

    /// The seed's `identifyAccount:`: the result's `message` carries the per-field codes as JSON.
    public func identifyAccount(_ user: MAUserID, completion: ((Int, String) -> Void)? = nil) {
        maPerform("ma.identify", user.json) { [weak self] reply in
            if let euid = reply["euid"] as? String { self?.withState(save: true) { $0.euid = euid } }
            completion?(Self.code(reply), reply["message"] as? String ?? "")
        }
    }

    /// `email`, `mobile_phone`, `landline_phone`, `whatsapp_phone`; "" clears one.
    public func setUserContact(_ contacts: [String: String], completion: ((Int, String) -> Void)? = nil) {
        maPerform("ma.contact", ["contacts": contacts]) { reply in completion?(Self.code(reply), reply["message"] as? String ?? "") }
    }

    // MARK: events

    /// Records an event; it goes with the others every `reportInterval` seconds, or at once when
    /// `maxEventCacheCount` are waiting.
    public func eventRecord(_ name: String, properties: [String: Any] = [:]) {
        let event: [String: Any] = ["name": name, "properties": properties, "time": ISO8601DateFormatter().string(from: Date())]
        let full = withState { _ -> Bool in
            pendingEvents.append(event)
            return pendingEvents.count >= maxEventCacheCount
        }
        if full { flushEvents() } else { scheduleFlush() }
    }

    /// Sends the events waiting now (one `ma.events`); `completion` gets the code and how many were accepted.
    public func flushEvents(completion: ((Int, Int) -> Void)? = nil) {
        let (events, utm) = withState { _ -> ([[String: Any]], [String: Any]) in
            defer { pendingEvents = [] }
            return (pendingEvents, utmProperties)
        }
        guard !events.isEmpty else { return refuse(PushBusCode.success) { _ in completion?(PushBusCode.success, 0) } }
        var fields: [String: Any] = ["events": events]
        if !utm.isEmpty { fields["utm"] = utm }
        maPerform("ma.events", fields) { reply in completion?(Self.code(reply), reply["accepted"] as? Int ?? 0) }
    }

    /// Seconds between reports of the events recorded (10 by default).
    public func setReportInterval(_ seconds: Int) { withState { _ in reportInterval = max(1, seconds) } }

    /// Events kept before they are reported at once (30 by default).
    public func setMaxEventCacheCount(_ count: Int) { withState { _ in maxEventCacheCount = max(1, count) } }

    /// UTM properties sent with every report of events.
    public func setUtmProperties(_ properties: [String: Any]) { withState { _ in utmProperties = properties } }

    private func scheduleFlush() {
        let due = withState { _ -> Bool in
            guard !flushScheduled else { return false }
            flushScheduled = true
            return true
        }
        guard due else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(withState { _ in reportInterval })) { [weak self] in
            self?.withState { _ in self?.flushScheduled = false }
            self?.flushEvents()
        }
    }

    // MARK: user properties

    public typealias MACompletion = (_ code: Int, _ message: String) -> Void

    /// Sets several properties at once (the seed's `setProperty:completion:`; NSNull is JSON null).
    public func setProperty(_ properties: [String: Any], completion: MACompletion? = nil) {
        property(["op": "set", "properties": properties], completion)
    }

    public func setProperty(_ key: String, to value: Any, completion: MACompletion? = nil) {
        property(["op": "set", "key": key, "value": value], completion)
    }

    public func increaseProperty(_ key: String, by amount: Double, completion: MACompletion? = nil) {
        property(["op": "increase", "key": key, "amount": amount], completion)
    }

    public func addProperty(_ key: String, values: [String], completion: MACompletion? = nil) {
        property(["op": "add", "key": key, "values": values], completion)
    }

    public func removeProperty(_ key: String, values: [String], completion: MACompletion? = nil) {
        property(["op": "remove", "key": key, "values": values], completion)
    }

    public func deleteProperty(_ key: String, completion: MACompletion? = nil) {
        property(["op": "delete", "key": key], completion)
    }

    public func addObjectArrayProperty(_ key: String, object: [String: Any], completion: MACompletion? = nil) {
        property(["op": "add_object_array", "key": key, "object": object], completion)
    }

    public func updateObjectArrayProperty(_ key: String, identifierKey: String, identifierValue: Any, values: [String: Any],
                                          completion: MACompletion? = nil) {
        property(["op": "update_object_array", "key": key, "identifier_key": identifierKey, "identifier_value": identifierValue, "values": values],
                 completion)
    }

    public func removeObjectArrayProperty(_ key: String, identifierKey: String, identifierValue: Any, completion: MACompletion? = nil) {
        property(["op": "remove_object_array", "key": key, "identifier_key": identifierKey, "identifier_value": identifierValue], completion)
    }

    /// A third-party push channel's RIDs or tokens (`channelId` > 0; values trimmed, none empty).
    public func setChannelValue(channelID: Int, values: [String], completion: MACompletion? = nil) {
        let trimmed = values.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard channelID > 0, !trimmed.isEmpty, !trimmed.contains(where: \.isEmpty) else {
            return refuse(PushBusCode.maInvalidParameter) { _ in completion?(PushBusCode.maInvalidParameter, "channelId > 0 and values not empty") }
        }
        maPerform("ma.channel_value", ["channel_id": channelID, "values": trimmed]) { reply in
            completion?(Self.code(reply), reply["message"] as? String ?? "")
        }
    }

    private func property(_ fields: [String: Any], _ completion: MACompletion?) {
        maPerform("ma.property", fields) { reply in completion?(Self.code(reply), reply["message"] as? String ?? "") }
    }

    /// An MA command for the current EUID: -2 when MA has not started.
    private func maPerform(_ command: String, _ fields: [String: Any], completion: @escaping ([String: Any]) -> Void) {
        guard let euid else {
            return refuse(PushBusCode.maNotStarted) { _ in completion(["code": PushBusCode.maNotStarted, "message": "start MA first"]) }
        }
        var payload = fields
        payload["euid"] = euid
        perform(command, payload, completion: completion)
    }
}
