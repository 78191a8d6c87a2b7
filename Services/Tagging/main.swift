import Runtime
import TaggingKit
import Worker

ServiceMain.run(.tagging, summary: "PushBus tagging service: tags, aliases, channel subscriptions and audience queries.",
                flags: [Flag("alias-max-devices", default: "10", help: "How many devices one alias may be bound to.")]) { flags, options, _ in
    try TaggingHandler(path: try options.databasePath("tagging"), publisher: options.shard.serviceName("tagging"),
                       aliasMaxDevices: try flags.int("alias-max-devices", in: 1...1_000_000))
}
