import Events
import SQLite

/// What a service keeps on disk: its database and the outbox its events go to. Made once per
/// process (or per handler test) and handed to the handler, which works on it through the worker's
/// transactions.
public final class ServiceStorage {
    public let store: Store
    public let outbox: Outbox

    /// Opens (creating and migrating) the database at `path` with the service's own `migrations`,
    /// the outbox's and the worker's tables around them; events are numbered as `publisher`'s.
    /// `durable: false` skips waiting for the disk at commit (benchmarks only).
    public init(path: String, migrations: [Migration], publisher: String, durable: Bool = true) throws {
        store = try Store(path: path, migrations: Self.migrations(migrations), durable: durable)
        outbox = try Outbox(store: store, publisher: publisher)
    }

    /// A service's own migrations with the outbox's before them and the worker's tables after.
    public static func migrations(_ own: [Migration]) -> [Migration] {
        [Outbox.migration] + own + [Outbox.catchUpMigration] + WorkerTables.migrations
    }
}
