import AnalyticsKit
import Credentials
import Runtime
import Worker

// The analytics service: a worker for MA and push statistics, and beside it the verifier (a side
// loop) that counts a message report once push says its device was a target of the message.
ServiceMain.run(.analytics, summary: "PushBus analytics service: MA identities, user properties, events, sessions, push statistics.",
                settings: AnalyticsSettings.self) { settings, options, logger, sides in
    let path = try options.databasePath("analytics")
    let name = options.shard.serviceName("analytics")
    let handler = try AnalyticsHandler(path: path, publisher: name, settings: settings, shard: options.shard)
    sides.add(ReportVerifier(path: path, access: options.gatewayAccess(service: name, secrets: try Secrets.load(directory: options.dataDirectory)),
                             logger: logger))
    return handler
}
