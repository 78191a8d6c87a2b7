import Runtime
import TaggingKit
import Worker

ServiceMain.run(.tagging, summary: "PushBus tagging service: tags, aliases, channel subscriptions and audience queries.",
                settings: TaggingSettings.self) { settings, options, logger, _ in
    let handler = try TaggingHandler(path: try options.databasePath("tagging"), publisher: options.shard.serviceName("tagging"),
                                     aliasMaxDevices: settings.aliasMaxDevices, deviceCacheEntries: settings.deviceCacheEntries,
                                     shard: options.shard)
    if let seconds = handler.audienceIndexBuildSeconds {
        logger.info("audience index built again from the devices' tags", ["seconds": seconds])
    }
    return handler
}
