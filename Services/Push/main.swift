import Client
import Credentials
import Foundation
import PushKit
import Runtime
import Worker
import ZeroMQ

// The push service: a worker answering push.* on one thread, and the fan-out sending accepted
// pushes in three side loops (expanding small pushes, expanding the others, sending), each with its own database connection
// and its own clients of the gateway, sharing the messages they have decoded (`MessageCache`). The
// fan-out keeps nothing in memory that a kill would lose.
ServiceMain.run(.push, summary: "PushBus push service: accepts pushes, expands their audiences, hands the notifications to the apns senders and records every result.",
                settings: PushSettings.self) { settings, options, logger, sides in
    let secrets = try Secrets.load(directory: options.dataDirectory)
    let path = try options.databasePath("push")
    let name = options.shard.serviceName("push")
    let context = try Context()
    let handler = try PushHandler(path: path, secrets: secrets, publisher: name)
    let pagesReady = Doorbell(context: context)
    let access = options.gatewayAccess(service: name, secrets: secrets)
    let messages = MessageCache()
    for direct in [true, false] {
        sides.add(Expander(direct: direct, path: path, access: access, settings: settings, logger: logger, pagesReady: pagesReady,
                           messages: messages))
    }
    sides.add(Fanout(path: path, access: access, settings: settings, logger: logger, pagesReady: pagesReady, messages: messages))
    return handler
}
