import Runtime
/// What a worker counts, sent to the gateway every few seconds on the bus (topic `metrics.<service>`),
/// which serves it with its own on `/metrics`.
public struct WorkerMetrics: Codable, Sendable, Equatable {
    public var service: String
    public var requests = 0
    /// Result code → replies that carried it.
    public var codes: [String: Int] = [:]
    public var batches = 0
    /// Batches rolled back and run again with a savepoint per request, because a request was
    /// refused after it had written (`Store.writeBatch`); each one costs its batch twice.
    public var batchesRunAgain = 0
    /// Batches that waited a moment for more requests before they ran (`--gather-us`).
    public var batchesGathered = 0
    /// Times the worker's store copied the WAL's last frames itself, so that the WAL could start
    /// over (`WALCheckpointer.finishOnWriter`).
    public var walWriterCheckpoints = 0
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
        case service, requests, codes, batches, batchesRunAgain = "batches_run_again", batchesGathered = "batches_gathered", walWriterCheckpoints = "wal_writer_checkpoints", batchLatency = "batch_latency"
        case eventsPublished = "events_published", eventsCaughtUp = "events_caught_up", laggingPublishers = "lagging_publishers"
    }
}

extension WorkerMetrics {
    /// Reads a snapshot; `batches_run_again`, `batches_gathered` and `wal_writer_checkpoints`, added later, may
    /// be missing (a worker of an older build).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        service = try container.decode(String.self, forKey: .service)
        requests = try container.decode(Int.self, forKey: .requests)
        codes = try container.decode([String: Int].self, forKey: .codes)
        batches = try container.decode(Int.self, forKey: .batches)
        batchesRunAgain = try container.decodeIfPresent(Int.self, forKey: .batchesRunAgain) ?? 0
        batchesGathered = try container.decodeIfPresent(Int.self, forKey: .batchesGathered) ?? 0
        walWriterCheckpoints = try container.decodeIfPresent(Int.self, forKey: .walWriterCheckpoints) ?? 0
        batchLatency = try container.decode(Histogram.self, forKey: .batchLatency)
        eventsPublished = try container.decode(Int.self, forKey: .eventsPublished)
        eventsCaughtUp = try container.decode(Int.self, forKey: .eventsCaughtUp)
        laggingPublishers = try container.decode(Int.self, forKey: .laggingPublishers)
    }
}
