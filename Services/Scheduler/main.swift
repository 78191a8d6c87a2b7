import Runtime
import SchedulerKit
import Worker

ServiceMain.run(.scheduler, summary: "PushBus scheduler service: local notifications, fired on time and kept across restarts.",
                flags: SchedulerSettings.flags) { flags, options, logger in
    let settings: SchedulerSettings
    do throws(UsageError) { settings = try SchedulerSettings(flags) } catch { Flags.exitUsage("scheduler", error) }
    return try SchedulerHandler(path: try options.databasePath("scheduler"), settings: settings,
                                publisher: options.shard.serviceName("scheduler"), logger: logger)
}
