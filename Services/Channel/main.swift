import ChannelKit
import Credentials
import Runtime
import Worker
import ZeroMQ

// The device channel: a shard's worker (mailboxes, presence, devices.status) on the main thread,
// the WebSocket server devices connect to on its own, and the uplink to the bus on a third.
OpenFileLimit.raiseToHardLimit()
ServiceMain.run(.channel, summary: "PushBus device channel: live WebSocket connections for custom messages, in-app messages and reminders.",
                settings: ChannelSettings.self) { settings, options, logger, sides in
    let secrets = try Secrets.load(directory: options.dataDirectory)
    let process = try ChannelProcess(settings: settings, options: options, secrets: secrets, logger: logger)
    let handler = try ChannelHandler(path: try options.databasePath("channel"), publisher: options.shard.serviceName("channel"),
                                     outlet: process)
    sides.add(ChannelSweep(host: process.host))
    try process.start()
    return handler
}
