import BadgeKit
import Runtime
import Worker

ServiceMain.run(.badge, summary: "PushBus badge service: server-kept badge values that pushes can raise.",
                settings: BadgeSettings.self) { settings, options, _, _ in
    try BadgeHandler(path: try options.databasePath("badge"), retention: Double(settings.retentionHours) * 3600,
                     publisher: options.shard.serviceName("badge"))
}
