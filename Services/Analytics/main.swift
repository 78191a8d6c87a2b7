import AnalyticsKit
import Runtime
import Worker

ServiceMain.run(.analytics, summary: "PushBus analytics service: MA identities, user properties, events, sessions, push statistics.",
                flags: AnalyticsSettings.flags) { flags, options, _ in
    let settings: AnalyticsSettings
    do throws(UsageError) { settings = try AnalyticsSettings(flags) } catch { Flags.exitUsage("analytics", error) }
    return try AnalyticsHandler(path: try options.databasePath("analytics"), publisher: options.shard.serviceName("analytics"),
                                settings: settings, shard: options.shard)
}
