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

/// The seed's `MTMACollectControl`: which device identifiers MA may collect (all by default).
public struct MACollectControl: Equatable {
    public var idfa = true
    public var idfv = true
    public var carrier = true

    public init(idfa: Bool = true, idfv: Bool = true, carrier: Bool = true) {
        self.idfa = idfa
        self.idfv = idfv
        self.carrier = carrier
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
    /// `maxEventCacheCount` are waiting. Kept in the state file until reported, so an event
    /// recorded offline or just before the app ended is reported by a later launch. Properties
    /// that are not JSON (the seed's NSNull is JSON null) are refused: the event is dropped and logged.
    /// Before `maStart` has given an EUID, at most `maxEventCacheCount` wait (the oldest go first).
    public func eventRecord(_ name: String, properties: [String: Any] = [:]) {
        let event: [String: Any] = ["name": name, "properties": properties, "time": ISO8601DateFormatter().string(from: Date())]
        guard JSONSerialization.isValidJSONObject(event), let data = try? JSONSerialization.data(withJSONObject: event) else {
            return PushBusLog.say(.error, "eventRecord(\(name)): properties are not JSON, event dropped")
        }
        guard data.count <= Self.maxEventBytes else {
            return PushBusLog.say(.error, "eventRecord(\(name)): \(data.count) bytes, at most \(Self.maxEventBytes); event dropped")
        }
        // Not synced: recording an event must not cost the app a disk flush each time.
        let full = withState(save: true, synced: false) { state -> Bool in
            state.events.append(data)
            if state.euid == nil, state.events.count > maxEventCacheCount {
                state.events.removeFirst(state.events.count - maxEventCacheCount)
                PushBusLog.say(.error, "MA not started: the oldest recorded event dropped")
            }
            return state.events.count >= maxEventCacheCount
        }
        if full { flushEvents() } else { scheduleFlush() }
    }

    /// An event's JSON at most (a report carries at most `maxReportBytes`, the device edge takes 64 KiB).
    static let maxEventBytes = 16 << 10
    static let maxReportBytes = 48 << 10
    static let maxReportEvents = 100

    /// Sends the events waiting now, in reports of at most 100 events and 48 KiB each (`ma.events`);
    /// `completion` gets the first code that was not 0 (else 0) and how many were accepted. The events
    /// leave the state in the one write that journals the reports carrying them, so two flushes at
    /// once never send one event twice.
    public func flushEvents(completion: ((Int, Int) -> Void)? = nil) {
        guard let euid else {
            return refuse(PushBusCode.maNotStarted) { _ in completion?(PushBusCode.maNotStarted, 0) }
        }
        perform("ma.events", building: { [self] state in
            var reports: [[String: Any]] = []
            var events: [Any] = []
            var bytes = 0
            func close() {
                guard !events.isEmpty else { return }
                var fields: [String: Any] = ["euid": euid, "events": events]
                if !utmProperties.isEmpty { fields["utm"] = utmProperties }
                if let sessionTimeout { fields["session_timeout"] = sessionTimeout }
                reports.append(fields)
                events = []
                bytes = 0
            }
            for data in state.events {
                guard let event = try? JSONSerialization.jsonObject(with: data) else { continue }
                if events.count == Self.maxReportEvents || bytes + data.count > Self.maxReportBytes { close() }
                events.append(event)
                bytes += data.count
            }
            close()
            state.events = []
            return reports
        }) { replies in
            let code = replies.lazy.map { Self.code($0) }.first { $0 != PushBusCode.success } ?? PushBusCode.success
            completion?(code, replies.reduce(0) { $0 + ($1["accepted"] as? Int ?? 0) })
        }
    }

    /// Seconds between reports of the events recorded (10 by default).
    public func setReportInterval(_ seconds: Int) { withState { _ in reportInterval = max(1, seconds) } }

    /// Events kept before they are reported at once (50 by default, at most 500, as the seed says).
    public func setMaxEventCacheCount(_ count: Int) { withState { _ in maxEventCacheCount = min(500, max(1, count)) } }

    /// The seed's `setNoActiveSessionEndDurationTime:`: seconds without an event after which the
    /// user's next event starts a new session (30 minutes by default, the app's setting on the
    /// server). Sent with every report, so the server cuts this device's sessions by it (1...86400).
    public func setNoActiveSessionEndDurationTime(_ seconds: Int) { withState { _ in sessionTimeout = min(86_400, max(1, seconds)) } }

    /// The seed's `setCollectControl:`. Kept and readable, but it changes nothing sent: the SDK
    /// collects none of IDFA, IDFV or carrier, whatever it says.
    public func setCollectControl(_ control: MACollectControl) { withState { _ in collectControl = control } }

    public var currentCollectControl: MACollectControl { withState { _ in collectControl } }

    /// UTM properties sent with every report of events.
    public func setUtmProperties(_ properties: [String: Any]) { withState { _ in utmProperties = properties } }

    func scheduleFlush() {
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
