import Bus
import Credentials
import Foundation
import Runtime

/// The settings every service worker shares, read from flags or `PUSHBUS_*` variables.
public struct WorkerOptions: Sendable {
    public var broker: String
    public var events: String
    public var eventsOut: String
    public var dataDirectory: String
    public var heartbeatMilliseconds: Int
    public var liveness: Int
    public var reconnectMilliseconds: Int
    /// Requests the gateway may hand this worker before it replies (MDP credit).
    public var credit: Int
    public var logLevel: Logger.Level
    public var parentPID: String?
    public var shard = ShardLayout()
    /// The gateway's CURVE public key when its request endpoint requires encryption.
    public var curveServerKey: String?
    /// How long published events stay in the outbox for subscribers to catch up.
    public var eventRetentionHours = 72
    /// How often a thread of its own checkpoints the service's database; 0 leaves every checkpoint
    /// to the service's connection, inside a commit.
    public var checkpointMilliseconds = 50

    /// The most requests one transaction takes: half the credit, so that while a batch is handled
    /// and committed the gateway already sends the next one (measured: +12 % on the stack replay
    /// against batches as large as the credit).
    public var batchLimit: Int { max(1, credit / 2) }

    public init(broker: String = "tcp://127.0.0.1:5555", events: String = "tcp://127.0.0.1:5557",
                eventsOut: String = "tcp://127.0.0.1:5558", dataDirectory: String = "./data", heartbeatMilliseconds: Int = 1000, liveness: Int = 3,
                reconnectMilliseconds: Int = 1000, credit: Int = 1024, logLevel: Logger.Level = .info) {
        self.broker = broker
        self.events = events
        self.eventsOut = eventsOut
        self.dataDirectory = dataDirectory
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.liveness = liveness
        self.reconnectMilliseconds = reconnectMilliseconds
        self.credit = credit
        self.logLevel = logLevel
    }

    public static let flags: [Flag] = [
        Flag("endpoint", default: "tcp://127.0.0.1:5555", help: "The gateway's request endpoint to serve."),
        Flag("events-in", default: "tcp://127.0.0.1:5557", help: "The gateway's event-bus input to publish to."),
        Flag("events-out", default: "tcp://127.0.0.1:5558", help: "The gateway's event-bus output to follow other services on."),
        Flag("data-dir", default: "./data", help: "Directory of this service's SQLite database."),
        Flag("heartbeat-ms", default: "1000", help: "Heartbeat interval with the gateway, in milliseconds."),
        Flag("liveness", default: "3", help: "Missed heartbeats before the gateway is taken for lost and redialled."),
        Flag("reconnect-ms", default: "1000", help: "Pause before redialling a lost gateway, in milliseconds."),
        Flag("credit", default: "1024", help: "Requests the gateway may hand over at once; each batch commits up to half of them in one transaction (group commit), so the next batch is already here while one commits."),
        Flag("log-level", default: "info", help: "trace, debug, info, notice, warning or error."),
        Flag("curve-server-key", default: nil, help: "The gateway's CURVE public key (Z85), when it requires encryption."),
        Flag("event-retention-hours", default: "72", help: "How long published events are kept for subscribers that missed them."),
        Flag("checkpoint-ms", default: "50", help: "How often a background thread copies the database's WAL back into its file, in milliseconds, so commits seldom stall on a checkpoint; 0 to leave checkpoints to the commits."),
        ParentWatch.flag,
    ] + ShardLayout.flags

    public init(_ flags: Flags) throws(UsageError) {
        broker = flags.string("endpoint")
        events = flags.string("events-in")
        eventsOut = flags.string("events-out")
        dataDirectory = flags.string("data-dir")
        heartbeatMilliseconds = try flags.int("heartbeat-ms", in: 10...60_000)
        liveness = try flags.int("liveness", in: 1...100)
        reconnectMilliseconds = try flags.int("reconnect-ms", in: 10...60_000)
        credit = try flags.int("credit", in: 1...10_000)
        logLevel = try flags.logLevel()
        parentPID = flags.optionalString(ParentWatch.flag.name)
        shard = try ShardLayout(flags)
        eventRetentionHours = try flags.int("event-retention-hours", in: 1...87_600)
        checkpointMilliseconds = try flags.int("checkpoint-ms", in: 0...60_000)
        curveServerKey = flags.optionalString("curve-server-key")
    }

    /// CURVE for the bus sockets when the gateway requires encryption, else nil.
    public func busCurve(_ secrets: Secrets) throws -> BusCurve? {
        try curveServerKey.map { try BusCurve(serverKey: $0, secrets: secrets) }
    }

    /// This shard's database in the data directory (created 0700 if needed, see `PrivateFiles`);
    /// throws when the directory holds data of `name` written with another shard count.
    public func databasePath(_ name: String) throws -> String {
        try PrivateFiles.prepareDirectory(dataDirectory)
        try shard.check(directory: dataDirectory, service: name)
        return (dataDirectory as NSString).appendingPathComponent(shard.databaseFile(name))
    }
}
