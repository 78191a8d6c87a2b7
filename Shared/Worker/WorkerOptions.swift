import Bus
import Client
import Credentials
import Foundation
import Runtime
import SQLite

/// The settings every service worker shares, read from flags or `PUSHBUS_*` variables; each
/// property's initial value is its flag's default.
public struct WorkerOptions: Options {
    /// The gateway's request endpoint the worker dials (the gateway binds the same `--endpoint`).
    public var endpoint = DefaultEndpoints.request
    public var eventsIn = DefaultEndpoints.eventsIn
    public var eventsOut = DefaultEndpoints.eventsOut
    public var dataDirectory = "./data"
    public var heartbeatMilliseconds = 1000
    public var liveness = 3
    public var reconnectMilliseconds = 1000
    /// Requests the gateway may hand this worker before it replies (MDP credit).
    public var credit = 1024
    public var logLevel = Logger.Level.info
    public var parentPID: String?
    public var shard = ShardLayout()
    /// The gateway's CURVE public key when its request endpoint requires encryption.
    public var curveServerKey: String?
    /// How long published events stay in the outbox for subscribers to catch up.
    public var eventRetentionHours = 72
    /// How often a thread of its own checkpoints the service's database; 0 leaves every checkpoint
    /// to the service's connection, inside a commit. 1 s: a page that many commits change in that
    /// second is copied into the file once, not once a pass. Against 10 ms, the tagging worker took
    /// a tenth less CPU a command at the peak, and the tail at half the peak was no longer
    /// (docs/benchmarks.md, "A checkpoint a second").
    public var checkpointMilliseconds = 1000
    /// WAL frames (4 KB pages) past which the checkpointer has the WAL start over
    /// (`WALCheckpointer.restartFrames`, 128 MB): what a WAL may take on disk, and how many commits'
    /// pages one pass can gather.
    public var walRestartFrames = WALCheckpointer.restartFrames
    /// How long a busy worker's batch waits for more requests before it runs, in microseconds
    /// (`BatchGathering`); 0, the default, never waits. At 500 µs and a third of the stack's peak the
    /// four processes of the stack took 12–22 % less CPU a call, but the median latency rose by
    /// 0.8–5 ms and the p99 moved either way (docs/benchmarks.md, "Batches gathered for a moment"):
    /// a trade for an operator who is short of CPU, not a default.
    public var gatherMicroseconds = 0
    /// Questions to other services asked at once for requests that need them first (`inquiries`), and
    /// how long each may take before the request runs with no answer (6002 for push.send).
    public var inquirySlots = 16
    public var inquiryTimeoutMilliseconds = 2000

    /// The most requests one transaction takes: half the credit, so that while a batch is handled
    /// and committed the gateway already sends the next one (measured: +12 % on the stack replay
    /// against batches as large as the credit).
    public var batchLimit: Int { max(1, credit / 2) }

    public init() {}

    public static let options: [Option<WorkerOptions>] = [
        .string("endpoint", \.endpoint, help: "The gateway's request endpoint to serve."),
        .string("events-in", \.eventsIn, help: "The gateway's event-bus input to publish to."),
        .string("events-out", \.eventsOut, help: "The gateway's event-bus output to follow other services on."),
        .string("data-dir", \.dataDirectory, help: "Directory of this service's SQLite database."),
        .int("heartbeat-ms", \.heartbeatMilliseconds, in: 10...60_000, help: "Heartbeat interval with the gateway, in milliseconds."),
        .int("liveness", \.liveness, in: 1...100, help: "Missed heartbeats before the gateway is taken for lost and redialled."),
        .int("reconnect-ms", \.reconnectMilliseconds, in: 10...60_000, help: "Pause before redialling a lost gateway, in milliseconds."),
        .int("credit", \.credit, in: 1...10_000,
             help: "Requests the gateway may hand over at once; each batch commits up to half of them in one transaction (group commit), so the next batch is already here while one commits."),
        .logLevel(\.logLevel),
        .optional("curve-server-key", \.curveServerKey, help: "The gateway's CURVE public key (Z85), when it requires encryption."),
        .int("event-retention-hours", \.eventRetentionHours, in: 1...87_600, help: "How long published events are kept for subscribers that missed them."),
        .int("checkpoint-ms", \.checkpointMilliseconds, in: 0...60_000,
             help: "How often a background thread copies the database's WAL back into its file, in milliseconds, so commits seldom stall on a checkpoint; a page changed many times in between is copied once. 0 to leave checkpoints to the commits."),
        .int("wal-restart-frames", \.walRestartFrames, in: 64...1_048_576,
             help: "WAL pages (4 KB each) past which the background checkpointer has the WAL start over: about what the WAL takes on disk. The default, 32768 (128 MB), lets one pass copy a page that many commits changed once. No effect with --checkpoint-ms 0."),
        .int("gather-us", \.gatherMicroseconds, in: 0...10_000,
             help: "How long a batch of 2 or more requests waits for more before it runs, in microseconds, while requests arrive fast enough that the wait gathers at least 2 more: one commit and one burst of replies then serve more requests, for less CPU a request and a longer median latency. A lone request never waits. 0 (default) never waits."),
        .int("inquiry-slots", \.inquirySlots, in: 1...1024,
             help: "Questions to other services in flight at once for requests that need their answers before they run (push.send asks tagging whether its audience has a device)."),
        .int("inquiry-timeout-ms", \.inquiryTimeoutMilliseconds, in: 50...60_000,
             help: "How long such a question may take; past it the request runs without the answer (push.send then answers 6002). The worker serves other requests meanwhile."),
        .parentPID(\.parentPID),
        .int("shard-index", \.shard.index, in: 0...(ShardMap.limit - 1), help: "This worker's shard of its service, 0-based."),
        .int("shard-count", \.shard.count, in: 1...ShardMap.limit,
             help: "How many shards its service has, as the gateway's --shards says; must match the data directory."),
    ]

    public func validate() throws(UsageError) { try shard.validate() }

    /// CURVE for the bus sockets when the gateway requires encryption, else nil.
    public func busCurve(_ secrets: Secrets) throws -> BusCurve? {
        try curveServerKey.map { try BusCurve(serverKey: $0, secrets: secrets) }
    }

    /// How this service (`service`, a shard's name) reaches the others through the gateway.
    public func gatewayAccess(service: String, secrets: Secrets) -> GatewayAccess {
        GatewayAccess(endpoint: endpoint, serverKey: curveServerKey, service: service, secrets: secrets)
    }

    /// This shard's database in the data directory (created 0700 if needed, see `PrivateFiles`);
    /// throws when the directory holds data of `name` written with another shard count.
    public func databasePath(_ name: String) throws -> String {
        try PrivateFiles.prepareDirectory(dataDirectory)
        try shard.check(directory: dataDirectory, service: name)
        return (dataDirectory as NSString).appendingPathComponent(shard.databaseFile(name))
    }
}
