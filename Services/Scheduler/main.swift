import Runtime
import SchedulerKit

ServiceMain.run(.scheduler, summary: "PushBus scheduler service: local notifications, fired on time and kept across restarts.",
                flags: SchedulerSettings.flags) { flags, options, logger in
    try SchedulerHandler(path: try options.databasePath("scheduler"), settings: try SchedulerSettings(flags),
                         logger: logger)
}
