/// `events.fetch`, which every service answers itself (not a device command; address the publisher's
/// MDP service by name): the publisher's events after `after`, oldest first, at most `limit`.
public struct EventFetch: Codable, Equatable, Sendable {
    public static let command = "events.fetch"
    public static let maxLimit = 1000

    public var after: Int64
    public var limit: Int?

    public init(after: Int64, limit: Int? = nil) {
        self.after = after
        self.limit = limit
    }
}

/// The answer to `events.fetch`: each event's topic and the event as published.
public struct FetchedEvents: Codable, Equatable, Sendable {
    public var events: [FetchedEvent]
    public init(events: [FetchedEvent]) { self.events = events }
}

public struct FetchedEvent: Codable, Equatable, Sendable {
    public var topic: String
    public var event: JSONValue
    public init(topic: String, event: JSONValue) {
        self.topic = topic
        self.event = event
    }
}
