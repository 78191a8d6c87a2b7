import JSON
import Schema

/// An `ma.events` payload: the fields of `MAEvents`, each event's properties read for the checks and
/// written as the text stored. Read from the request's tree without the Codable machinery, which cost
/// more than the rest of the ingest; or from a decoded `MAEvents`.
struct EventsPayload {
    struct Event {
        let name: String?
        let time: String?
        let properties: EventProperties?
    }

    let appKey: String?
    let euid: String?
    let events: [Event]?
    let utm: [String: String]?
    let sessionTimeout: Double?

    init(_ p: MAEvents) {
        appKey = p.appKey
        euid = p.euid
        events = p.events?.map { Event(name: $0.name, time: $0.time, properties: $0.properties.map { EventProperties(JSONObject($0)) }) }
        utm = p.utm
        sessionTimeout = p.sessionTimeout
    }

    /// The fields of a payload's tree, read as decoding `MAEvents` reads them (the first of a key, null
    /// as absent); nil wherever that decoding would throw or read otherwise (a field of another type, an
    /// event that is not an object), so the caller decodes `MAEvents` for its exact answer.
    init?(_ tree: JSONValue) {
        guard case .object(let payload) = tree,
              let appKey = Self.string(payload["app_key"]), let euid = Self.string(payload["euid"]),
              let events = Self.events(payload["events"]), let utm = Self.utm(payload["utm"]),
              let sessionTimeout = Self.number(payload["session_timeout"]) else { return nil }
        self.appKey = appKey
        self.euid = euid
        self.events = events
        self.utm = utm
        self.sessionTimeout = sessionTimeout
    }

    /// .some(nil) for an absent or null field, .some(text) for a string, nil for anything else.
    private static func string(_ value: JSONValue?) -> String?? {
        switch value {
        case nil, .null?: .some(nil)
        case .string(let text)?: .some(text)
        default: nil
        }
    }

    private static func number(_ value: JSONValue?) -> Double?? {
        switch value {
        case nil, .null?: return .some(Double?.none)
        case .number(let number)?: return .some(number.value)
        default: return nil
        }
    }

    private static func events(_ value: JSONValue?) -> [Event]?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .array(let items)?:
            var events: [Event] = []
            events.reserveCapacity(items.count)
            for item in items {
                guard case .object(let event) = item, let name = string(event["name"]), let time = string(event["time"]),
                      let properties = properties(event["properties"]) else { return nil }
                events.append(Event(name: name, time: time, properties: properties))
            }
            return .some(events)
        default: return nil
        }
    }

    private static func properties(_ value: JSONValue?) -> EventProperties?? {
        switch value {
        case nil, .null?: .some(nil)
        case .object(let object)?: .some(EventProperties(object))
        default: nil
        }
    }

    /// A decoded `[String: String]` reads every member's value (the first of a key each time): all must
    /// be strings, or its decoding would throw.
    private static func utm(_ value: JSONValue?) -> [String: String]?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .object(let object)?:
            var utm: [String: String] = [:]
            for member in object.members {
                guard case .string(let text) = member.value else { return nil }
                if utm[member.key] == nil { utm[member.key] = text }
            }
            return .some(utm)
        default: return nil
        }
    }
}
