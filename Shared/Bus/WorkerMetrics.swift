import Runtime
/// What a worker counts, sent to the gateway every few seconds on the bus (topic `metrics.<service>`),
/// which serves it with its own on `/metrics`.
public struct WorkerMetrics: Codable, Sendable, Equatable {
    public var service: String
    public var requests = 0
    /// Result code → replies that carried it.
    public var codes: [String: Int] = [:]
    public var batches = 0
    /// Time to run and commit each batch.
    public var batchLatency = Histogram()
    public var eventsPublished = 0
    /// Events this service missed on the bus and fetched from their publisher.
    public var eventsCaughtUp = 0
    /// Publishers whose missed events could not be fetched yet.
    public var laggingPublishers = 0

    public init(service: String) { self.service = service }

    public static let topicPrefix = "metrics."

    enum CodingKeys: String, CodingKey {
        case service, requests, codes, batches, batchLatency = "batch_latency", eventsPublished = "events_published"
        case eventsCaughtUp = "events_caught_up", laggingPublishers = "lagging_publishers"
    }
}
