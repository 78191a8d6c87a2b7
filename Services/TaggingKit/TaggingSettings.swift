import Runtime

/// The tagging service's own settings, from flags or `PUSHBUS_*` variables.
public struct TaggingSettings: Options {
    /// How many devices one alias may be bound to.
    public var aliasMaxDevices = 10
    /// Device entries kept in memory (`DeviceIndex`).
    public var deviceCacheEntries = TaggingHandler.defaultDeviceCacheEntries

    public init() {}

    public static let options: [Option<TaggingSettings>] = [
        .int("alias-max-devices", \.aliasMaxDevices, in: 1...1_000_000, help: "How many devices one alias may be bound to."),
        .int("device-cache", \.deviceCacheEntries, in: 0...100_000_000,
             help: "Devices whose entry (app, alias, tags) is kept in memory, about 380 bytes each (250,000: some 95 MB); past it the cache starts over. 0 for none: every command reads its device's row."),
    ]
}
