import Client
import Credentials
import Runtime
import Schema
import SQLite
import Worker
import ZeroMQ

/// Counts the message reports of target devices only: a side loop of analytics with its own
/// connection to the analytics database and its own client of the gateway. `stats.report` stores a
/// message report unverified and counts nothing; each pass takes the oldest `batch` unverified
/// reports, asks push `push.device_status` for them (one call per message and 1000 devices, signed
/// as the message's app), and then, in one transaction, counts the reports of target devices and
/// marks the others refused (also when push says the msg_id is not one of the app's messages), so
/// anyone with an app_key cannot inflate a message's statistics. When push does not answer, the
/// reports push did answer for are settled, the rest stay unverified, and the pass throws: the
/// loop tries again after its growing pause.
public final class ReportVerifier: SideLoop {
    public let name = "stats-verify"
    private let path: String
    private let access: GatewayAccess
    private let logger: Logger
    private var store: Store!
    private var push: ServiceCaller!
    private let reports = ReportStore()

    /// Reports taken by one pass.
    static let batch = 4096
    /// How often an idle verifier looks for new reports: a report is counted within about this long.
    static let idleSeconds = 0.5

    /// `access` signs `push.device_status` as the report's app, whose key it derives.
    public init(path: String, access: GatewayAccess, logger: Logger) {
        self.path = path
        self.access = access
        self.logger = logger
    }

    public func prepare(context: Context) throws {
        store = try Store(path: path, migrations: ServiceStorage.migrations(AnalyticsSchema.migrations))
        push = try access.caller(context: context)
    }

    /// Settles a batch; at once again when it was full, else in `idleSeconds`.
    public func pass(now: Double) throws -> Double {
        let pending = try store.read { db in try reports.unverified(db, limit: Self.batch) }
        guard !pending.isEmpty else { return Self.idleSeconds }
        var check = TargetCheck(pending)
        let silence = check.ask { question in try push.call(.pushDeviceStatus, question, as: PushDeviceStatusReply.self) }
        let verdicts = check.verdicts
        let counted = try store.write { db in try reports.settle(db, verdicts) }
        logger.debug("reports verified", ["reports": pending.count, "settled": verdicts.count, "counted": counted])
        if let silence { throw silence }
        return pending.count == Self.batch ? 0 : Self.idleSeconds
    }
}
