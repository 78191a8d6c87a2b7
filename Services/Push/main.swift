import Client
import Credentials
import Foundation
import PushKit
import Runtime
import Worker
import ZeroMQ

// The push service: a worker answering push.* on one thread, and the fan-out sending accepted
// pushes on two others, each with its own database connection and its own client of the gateway.
// The fan-out keeps nothing in memory that a kill would lose: it ends with the process.
ServiceMain.run(.push, summary: "PushBus push service: accepts pushes, expands their audiences, hands the notifications to the apns senders and records every result.",
                settings: PushSettings.self) { settings, options, logger in
    let secrets = try Secrets.load(directory: options.dataDirectory)
    let path = try options.databasePath("push")
    let name = options.shard.serviceName("push")
    let context = try Context()
    let handler = try PushHandler(path: path, secrets: secrets, publisher: name,
                                  gateway: try ServiceCaller(endpoint: options.endpoint, context: context, secrets: secrets, service: name,
                                                             serverKey: options.curveServerKey, timeoutMilliseconds: settings.checkTimeoutMilliseconds))
    let fanout = try Fanout(path: path, secrets: secrets, endpoint: options.endpoint, context: context, serverKey: options.curveServerKey,
                            service: name, settings: settings, logger: logger)
    try fanout.start(context: context)
    return handler
}
