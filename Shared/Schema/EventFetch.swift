/// `events.fetch`, which every service answers itself (not a device command; address the publisher's
/// MDP service by name, which `publisher` repeats, so that a captured fetch sent to another service
/// is refused): the publisher's events after `after`, oldest first, at most `limit`; with `topics`,
/// only events of these topics (the others are skipped by the publisher, never sent). `question_id`,
/// drawn by the asker, comes back under the publisher's signature, so an answer cannot be one given
/// to another question.
public struct EventFetch: Codable, Equatable, Sendable {
    public static let command = "events.fetch"
    public static let maxLimit = 1000

    public var publisher: String?
    public var after: Int64
    public var limit: Int?
    public var topics: [String]?
    public var questionID: String?

    public init(publisher: String, after: Int64, limit: Int? = nil, topics: [String]? = nil, questionID: String? = nil) {
        self.publisher = publisher
        self.after = after
        self.limit = limit
        self.topics = topics
        self.questionID = questionID
    }

    enum CodingKeys: String, CodingKey { case publisher, after, limit, topics, questionID = "question_id" }
}

/// The answer to `events.fetch`: each event's topic, the event as published (its JSON text, the very
/// bytes its proof signs) and the publisher's proof; `through`, the sequence of the last event looked
/// at (the last one sent when the page is full, else the publisher's newest; absent when it has none
/// after `after`), so a subscriber that asked for some topics moves its cursor past the events it did
/// not ask for; and `epoch`, the publisher's history now: when it is not the one the subscriber's
/// cursor counts in, the numbering started over and the subscriber starts again from 0.
public struct FetchedEvents: Codable, Equatable, Sendable {
    public var events: [FetchedEvent]
    public var through: Int64?
    public var epoch: String?
    /// The question's `question_id`, echoed.
    public var questionID: String?
    /// The publisher's signature over the answer as a whole (`FetchSeal`): the question it answers,
    /// `through`, `epoch` and which events it holds, so none of them can be changed on the way.
    public var proof: String?
    public init(events: [FetchedEvent], through: Int64? = nil, epoch: String? = nil, questionID: String? = nil, proof: String? = nil) {
        self.events = events
        self.through = through
        self.epoch = epoch
        self.questionID = questionID
        self.proof = proof
    }

    enum CodingKeys: String, CodingKey { case events, through, epoch, questionID = "question_id", proof }
}

public struct FetchedEvent: Codable, Equatable, Sendable {
    public var topic: String
    /// The event's JSON text, as published.
    public var event: String
    /// `v1 service:<publisher> <hex HMAC>` over `topic + "\n" + event`, as on the bus.
    public var proof: String
    public init(topic: String, event: String, proof: String) {
        self.topic = topic
        self.event = event
        self.proof = proof
    }
}
