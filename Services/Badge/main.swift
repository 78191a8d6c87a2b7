import BadgeKit
import Runtime
import Worker

let retentionFlag = Flag("badge-retention-hours", default: "24",
                         help: "How long badge.apply remembers a msg_id after its last call, so a retried push changes nothing.")

ServiceMain.run(.badge, summary: "PushBus badge service: server-kept badge values that pushes can raise.",
                flags: [retentionFlag]) { flags, options, _ in
    let hours: Int
    do throws(UsageError) { hours = try flags.int(retentionFlag.name, in: 1...8760) } catch { Flags.exitUsage("badge", error) }
    return try BadgeHandler(path: try options.databasePath("badge"), retention: Double(hours) * 3600,
                            publisher: options.shard.serviceName("badge"))
}
