import Credentials
import Runtime
import SchedulerKit
import Worker
import ZeroMQ

// The scheduler: a worker for local notifications and server-side schedules, and beside it the
// firer (a side loop) that turns each due schedule into a push.send.
ServiceMain.run(.scheduler, summary: "PushBus scheduler service: local notifications fired on time and kept across restarts, and server-side scheduled pushes.",
                settings: SchedulerSettings.self) { settings, options, logger, sides in
    let path = try options.databasePath("scheduler")
    let name = options.shard.serviceName("scheduler")
    let handler = try SchedulerHandler(path: path, settings: settings, publisher: name, logger: logger)
    sides.add(ScheduleFirer(path: path, access: options.gatewayAccess(service: name, secrets: try Secrets.load(directory: options.dataDirectory)),
                            logger: logger))
    return handler
}
