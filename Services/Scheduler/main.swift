import Runtime
import SchedulerKit
import Worker

ServiceMain.run(.scheduler, summary: "PushBus scheduler service: local notifications, fired on time and kept across restarts.",
                settings: SchedulerSettings.self) { settings, options, logger in
    try SchedulerHandler(path: try options.databasePath("scheduler"), settings: settings,
                         publisher: options.shard.serviceName("scheduler"), logger: logger)
}
