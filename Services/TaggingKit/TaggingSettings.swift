import Runtime

/// The tagging service's own settings, from flags or `PUSHBUS_*` variables.
public struct TaggingSettings: Options {
    /// How many devices one alias may be bound to.
    public var aliasMaxDevices = 10

    public init() {}

    public static let options: [Option<TaggingSettings>] = [
        .int("alias-max-devices", \.aliasMaxDevices, in: 1...1_000_000, help: "How many devices one alias may be bound to."),
    ]
}
