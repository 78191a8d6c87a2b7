import AnalyticsKit
import Runtime
import Worker

ServiceMain.run(.analytics, summary: "PushBus analytics service: MA identities, user properties, events, sessions, push statistics.",
                settings: AnalyticsSettings.self) { settings, options, _, _ in
    try AnalyticsHandler(path: try options.databasePath("analytics"), publisher: options.shard.serviceName("analytics"),
                         settings: settings, shard: options.shard)
}
