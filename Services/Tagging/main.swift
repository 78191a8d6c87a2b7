import Runtime
import TaggingKit
import Worker

ServiceMain.run(.tagging, summary: "PushBus tagging service: tags, aliases, channel subscriptions and audience queries.",
                settings: TaggingSettings.self) { settings, options, _ in
    try TaggingHandler(path: try options.databasePath("tagging"), publisher: options.shard.serviceName("tagging"),
                       aliasMaxDevices: settings.aliasMaxDevices, shard: options.shard)
}
